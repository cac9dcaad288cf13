// The merge fields a template can use (docs/api.md, "Rendering and the pixel"), for the editor's
// completion and its help text. Kept beside the editor: the server's render context is the source
// of truth, and test/web-merge-fields.test.ts checks that this list is the one the service knows.
import type { Completion } from '@codemirror/autocomplete';

export const USER_FIELDS = [
  ['name', 'Full name'],
  ['title', 'Job title'],
  ['email', 'Email address'],
  ['phone', 'Work phone'],
  ['mobile', 'Mobile phone'],
  ['department', 'Department'],
  ['pronouns', 'Pronouns'],
  ['website', 'Personal website'],
  ['address', 'Address (lines separated by newlines)'],
  ['photo_url', 'Profile photo URL (an <img src>)'],
  ['social', 'Profile links by network'],
  ['attributes', "The organisation's custom fields"],
] as const;

export const ORG_FIELDS = [
  ['name', "Organisation's name"],
  ['website', "Organisation's website"],
  ['address', "Organisation's address"],
  ['logo_url', 'Logo URL (an <img src>)'],
  ['social', "Organisation's links by network"],
] as const;

export const SOCIAL_NETWORKS = [
  ['linkedin', 'LinkedIn'],
  ['x', 'X'],
  ['facebook', 'Facebook'],
  ['instagram', 'Instagram'],
  ['youtube', 'YouTube'],
  ['github', 'GitHub'],
] as const;

export const CAMPAIGN_FIELDS = [
  ['banner', "An active campaign's banner (HTML)"],
  ['text', "An active campaign's line of text"],
] as const;

export const VARIABLES: Completion[] = [
  { label: 'user', type: 'variable', detail: 'the person the signature is for' },
  { label: 'org', type: 'variable', detail: 'your organisation' },
  { label: 'campaign', type: 'variable', detail: "an active campaign's banner" },
  { label: 'pixel_url', type: 'variable', detail: 'open-tracking pixel URL (an <img src>)' },
];

const PROPERTIES: Record<string, readonly (readonly [string, string])[]> = {
  user: USER_FIELDS,
  org: ORG_FIELDS,
  campaign: CAMPAIGN_FIELDS,
  'user.social': SOCIAL_NETWORKS,
  'org.social': SOCIAL_NETWORKS,
};

/** Completions after `user.`, `org.`, `campaign.` and `user.social.` / `org.social.`. */
export function propertyCompletions(path: readonly string[]): Completion[] {
  const fields = PROPERTIES[path.join('.')] ?? [];
  return fields.map(([label, detail]) => ({ label, type: 'property', detail }));
}

/** Every field as it is written in a template, for the help list beside the editor. */
export const ALL_FIELDS: string[] = [
  ...USER_FIELDS.filter(([f]) => f !== 'social' && f !== 'attributes').map(([f]) => `user.${f}`),
  ...SOCIAL_NETWORKS.map(([n]) => `user.social.${n}`),
  ...ORG_FIELDS.filter(([f]) => f !== 'social').map(([f]) => `org.${f}`),
  ...SOCIAL_NETWORKS.map(([n]) => `org.social.${n}`),
  ...CAMPAIGN_FIELDS.map(([f]) => `campaign.${f}`),
  'pixel_url',
];
