// What users and orgs share of a profile (docs/api.md, "Profiles"), apart from HTTP: the user
// fields members may be allowed to change, custom field keys and what each type holds, and how a
// links patch applies.
import { isWebLink } from './track-mark.ts';

/**
 * The user fields members may be allowed to change on themselves. The first six are an org's
 * default (`orgs.self_service_fields`' default, migration 110); an admin may add the other four.
 */
export const SELF_SERVICE_CHOICES = ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social', 'title', 'department', 'website', 'address'] as const;
export type SelfServiceField = (typeof SELF_SERVICE_CHOICES)[number];

export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,31}$/;
export const MAX_CUSTOM_FIELDS = 50;

const PHONE = /^[+0-9 ()./-]{1,50}$/;

/**
 * Whether a custom field's value is of the field's type: `url` an http(s) URL, `phone` digits,
 * spaces and `+ ( ) . / -` (at most 50); any text (the request schemas bound its length) for `text`.
 * A user's value is checked when it is set, and again when the field's type changes.
 */
export function fitsFieldType(type: 'text' | 'url' | 'phone', value: string): boolean {
  if (type === 'url') return isWebLink(value) && URL.canParse(value);
  if (type === 'phone') return PHONE.test(value);
  return true;
}

/** Applies a patch of keyed values (links, custom values): merged, `null` or `""` removes a key. */
export function mergeLinks(current: Record<string, string>, patch: Record<string, string | null | undefined>): Record<string, string> {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null || value === '') delete next[key];
    else next[key] = value;
  }
  return next;
}
