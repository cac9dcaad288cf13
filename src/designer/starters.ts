// The gallery's starting points, as designs: a person picks one, changes what they like in the
// designer, and saves. None uses an image of the org's (a new org has none): logos and banners
// are added in the designer. Each compiles without warnings (src/designer/starters.test.ts).
import type { Design } from './design.ts';

export interface StarterDesign {
  starterId: string;
  name: string;
  /** One line for the gallery: what the starter is good for. */
  description: string;
  design: Design;
}

const base = (style: Partial<Design['style']>): Design['style'] => ({
  fontFamily: 'arial',
  fontSize: 13,
  textColor: '#333333',
  accentColor: '#2450d4',
  linkColor: '#2450d4',
  ...style,
});

export const STARTER_DESIGNS: readonly StarterDesign[] = [
  {
    starterId: 'classic',
    name: 'Classic',
    description: 'Name, role, organisation and contact details under a rule in your colour.',
    design: {
      version: 1,
      layout: 'stacked',
      style: base({}),
      blocks: [
        { type: 'identity', show: ['name', 'pronouns', 'title', 'department'] },
        // The org's name: the identity block shows only the person's fields (DECISIONS wave 3), so
        // an html block carries it; its text is the plain-text version's line too (html-text.ts).
        { type: 'html', html: '<span style="font-weight:bold">{{ org.name }}</span>' },
        { type: 'divider' },
        { type: 'contact', show: ['phone', 'mobile', 'email', 'website'] },
      ],
    },
  },
  {
    starterId: 'compact',
    name: 'Compact (one line)',
    description: 'Everything on two short lines: for replies and busy people.',
    design: {
      version: 1,
      layout: 'compact',
      style: base({ fontSize: 12, textColor: '#555555' }),
      blocks: [
        { type: 'identity', show: ['name', 'title'] },
        { type: 'contact', show: ['phone', 'email'] },
      ],
    },
  },
  {
    starterId: 'sidebar',
    name: 'Two columns',
    description: 'Photo on the left, details on the right of a coloured rule.',
    design: {
      version: 1,
      layout: 'side-by-side',
      style: base({ fontFamily: 'georgia', accentColor: '#8a5a00', linkColor: '#8a5a00' }),
      blocks: [
        { type: 'photo', shape: 'circle', size: 72 },
        { type: 'identity', show: ['name', 'pronouns', 'title'] },
        { type: 'contact', show: ['phone', 'mobile', 'email', 'address'] },
        { type: 'social', networks: ['linkedin', 'x', 'instagram'] },
      ],
    },
  },
  {
    starterId: 'modern',
    name: 'Modern',
    description: 'A square photo, bold name and social icons in a clean sans-serif.',
    design: {
      version: 1,
      layout: 'side-by-side',
      style: base({ fontFamily: 'helvetica', textColor: '#1d2330', accentColor: '#0f766e', linkColor: '#0f766e' }),
      blocks: [
        { type: 'photo', shape: 'square', size: 80 },
        { type: 'identity', show: ['name', 'title', 'department'] },
        { type: 'contact', show: ['email', 'phone', 'website'] },
        { type: 'social', networks: ['linkedin', 'github', 'youtube'] },
      ],
    },
  },
  {
    starterId: 'corporate',
    name: 'Corporate',
    description: 'Formal details and a confidentiality notice in small print.',
    design: {
      version: 1,
      layout: 'stacked',
      style: base({ fontFamily: 'times', fontSize: 14, textColor: '#222222', accentColor: '#1f3a5f', linkColor: '#1f3a5f' }),
      blocks: [
        { type: 'identity', show: ['name', 'title', 'department'] },
        { type: 'contact', show: ['phone', 'mobile', 'email', 'website', 'address'] },
        { type: 'divider' },
        {
          type: 'disclaimer',
          text: 'This message and any attachments are confidential and intended for the named recipient only. If you received it in error, please tell the sender and delete it.',
        },
      ],
    },
  },
  {
    starterId: 'minimal',
    name: 'Minimal',
    description: 'Just your name and how to reach you, in quiet grey.',
    design: {
      version: 1,
      layout: 'stacked',
      style: base({ fontFamily: 'verdana', fontSize: 12, textColor: '#4b5563', accentColor: '#6b7280', linkColor: '#374151' }),
      blocks: [
        { type: 'identity', show: ['name', 'title'] },
        { type: 'contact', show: ['email', 'phone'] },
      ],
    },
  },
  {
    starterId: 'sales',
    name: 'Sales',
    description: 'A button to book a meeting under your details, and a place for campaign banners.',
    design: {
      version: 1,
      layout: 'stacked',
      style: base({ fontFamily: 'trebuchet', textColor: '#1f2937', accentColor: '#c2410c', linkColor: '#c2410c' }),
      blocks: [
        { type: 'identity', show: ['name', 'pronouns', 'title'] },
        { type: 'contact', show: ['phone', 'mobile', 'email'] },
        { type: 'button', label: 'Book a meeting', link: 'https://example.com/book' },
        { type: 'campaign' },
      ],
    },
  },
  {
    starterId: 'social',
    name: 'Social',
    description: 'Your profiles up front: for people who are found online.',
    design: {
      version: 1,
      layout: 'stacked',
      style: base({ fontFamily: 'tahoma', textColor: '#111827', accentColor: '#7c3aed', linkColor: '#7c3aed' }),
      blocks: [
        { type: 'photo', shape: 'circle', size: 56 },
        { type: 'identity', show: ['name', 'pronouns', 'title'] },
        { type: 'social', networks: ['linkedin', 'x', 'facebook', 'instagram', 'youtube', 'github'] },
        { type: 'spacer', height: 6 },
        { type: 'contact', show: ['email', 'website'] },
      ],
    },
  },
];
