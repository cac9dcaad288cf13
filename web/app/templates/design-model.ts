// The design document as the designer edits it. The types are the OpenAPI document's (the service's
// zod schema, src/designer/design.ts); the lists below are checked against them by the compiler
// (`satisfies`), so a change of the schema breaks this build.
import type { Schemas } from '../../shared/api/types.ts';

export type Design = Schemas['Design'];
export type Block = Design['blocks'][number];
export type BlockType = Block['type'];
export type DesignStyle = Design['style'];
export type FontFamily = DesignStyle['fontFamily'];
type Of<T extends BlockType> = Extract<Block, { type: T }>;
export type IdentityField = Of<'identity'>['show'][number];
export type ContactField = Of<'contact'>['show'][number];
export type SocialNetwork = Of<'social'>['networks'][number];

export const FONTS = [
  ['arial', 'Arial'],
  ['helvetica', 'Helvetica'],
  ['georgia', 'Georgia'],
  ['times', 'Times New Roman'],
  ['verdana', 'Verdana'],
  ['tahoma', 'Tahoma'],
  ['trebuchet', 'Trebuchet MS'],
  ['courier', 'Courier New'],
] as const satisfies readonly (readonly [FontFamily, string])[];

export const LAYOUTS = [
  ['stacked', 'Stacked'],
  ['side-by-side', 'Side by side'],
  ['compact', 'Compact'],
] as const satisfies readonly (readonly [Design['layout'], string])[];

export const IDENTITY_FIELDS = [
  ['name', 'Name'],
  ['pronouns', 'Pronouns'],
  ['title', 'Job title'],
  ['department', 'Department'],
] as const satisfies readonly (readonly [IdentityField, string])[];

export const CONTACT_FIELDS = [
  ['phone', 'Phone'],
  ['mobile', 'Mobile'],
  ['email', 'Email'],
  ['website', 'Website'],
  ['address', 'Address'],
] as const satisfies readonly (readonly [ContactField, string])[];

export const NETWORKS = [
  ['linkedin', 'LinkedIn'],
  ['x', 'X'],
  ['facebook', 'Facebook'],
  ['instagram', 'Instagram'],
  ['youtube', 'YouTube'],
  ['github', 'GitHub'],
] as const satisfies readonly (readonly [SocialNetwork, string])[];

export const BLOCK_LABELS: Record<BlockType, string> = {
  identity: 'Name and role',
  contact: 'Contact details',
  photo: 'Photo',
  logo: 'Logo',
  social: 'Social links',
  banner: 'Banner',
  campaign: 'Campaign banner',
  disclaimer: 'Disclaimer',
  divider: 'Divider',
  spacer: 'Space',
  button: 'Button',
  html: 'Custom HTML',
};

/** A new block of a type, with settings that compile as they are (logo and banner need an image). */
export function newBlock(type: BlockType, imageId: string | undefined): Block | undefined {
  switch (type) {
    case 'identity':
      return { type, show: ['name', 'title'] };
    case 'contact':
      return { type, show: ['phone', 'email'] };
    case 'photo':
      return { type, shape: 'circle', size: 72 };
    case 'logo':
      return imageId ? { type, imageId, width: 120 } : undefined;
    case 'social':
      return { type, networks: ['linkedin'] };
    case 'banner':
      return imageId ? { type, imageId, alt: 'Our latest news' } : undefined;
    case 'disclaimer':
      return { type, text: 'This message and its attachments are confidential.' };
    case 'spacer':
      return { type, height: 12 };
    case 'button':
      return { type, label: 'Book a meeting', link: 'https://example.com/meet' };
    case 'html':
      return { type, html: '<p style="margin:0">{{ user.name }}</p>' };
    default:
      return { type };
  }
}

/** One line about a block for the list (what it shows). */
export function blockSummary(block: Block): string {
  switch (block.type) {
    case 'identity':
    case 'contact':
      return block.show.join(', ');
    case 'social':
      return block.networks.join(', ');
    case 'photo':
      return `${block.shape}, ${block.size} px`;
    case 'logo':
      return `${block.width} px wide`;
    case 'banner':
      return block.alt;
    case 'disclaimer':
      return block.text.length > 40 ? `${block.text.slice(0, 40)}…` : block.text;
    case 'spacer':
      return `${block.height} px`;
    case 'button':
      return block.label;
    default:
      return '';
  }
}

/** A person with every field filled, so no conditional line of a design stays hidden in the preview. */
export function samplePerson(customFields: readonly { key: string; label: string }[], orgName: string) {
  // One pixel of a soft blue, drawn at the photo block's size: a stand-in face.
  const photo = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGPoWnICAAOyAfccvbJ/AAAAAElFTkSuQmCC';
  const social = Object.fromEntries(NETWORKS.map(([n]) => [n, `https://${n === 'x' ? 'x' : n}.com/alexmorgan`]));
  return {
    user: {
      name: 'Alex Morgan',
      pronouns: 'they/them',
      title: 'Head of Partnerships',
      department: 'Sales',
      email: 'alex.morgan@example.com',
      phone: '+44 20 7946 0958',
      mobile: '+44 7700 900123',
      website: 'https://example.com',
      address: '1 Example Street\nLondon EC1A 1BB',
      photo_url: photo,
      social,
      attributes: Object.fromEntries(customFields.map((f) => [f.key, `Sample ${f.label.toLowerCase()}`])),
    },
    org: { name: orgName, website: 'https://example.com', address: '1 Example Street\nLondon EC1A 1BB', logo_url: '', social },
    campaign: { banner: '', text: '' },
    pixel_url: '',
  };
}
