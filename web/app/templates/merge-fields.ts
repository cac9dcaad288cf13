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
] as const;

export const ORG_FIELDS = [['name', "Organisation's name"]] as const;

export const VARIABLES: Completion[] = [
  { label: 'user', type: 'variable', detail: 'the person the signature is for' },
  { label: 'org', type: 'variable', detail: 'your organisation' },
  { label: 'pixel_url', type: 'variable', detail: 'open-tracking pixel URL (an <img src>)' },
];

/** Completions after `user.` and `org.`. */
export function propertyCompletions(path: readonly string[]): Completion[] {
  const fields = path.length === 1 && path[0] === 'user' ? USER_FIELDS : path.length === 1 && path[0] === 'org' ? ORG_FIELDS : [];
  return fields.map(([label, detail]) => ({ label, type: 'property', detail }));
}

/** Every field as it is written in a template, for the help list beside the editor. */
export const ALL_FIELDS: string[] = [
  ...USER_FIELDS.map(([f]) => `user.${f}`),
  ...ORG_FIELDS.map(([f]) => `org.${f}`),
  'pixel_url',
];
