// The shapes of a profile that users and orgs share (docs/api.md, "Profiles"): web links, the
// social networks, the org's custom fields and the user fields members may edit themselves.
import { z } from 'zod';
import { text } from './schemas.ts';

/** A page on the web: http or https, nothing a mail client would run (javascript:, data:). */
export const webUrl = () =>
  text()
    .trim()
    .max(2000)
    .refine((v) => /^https?:\/\/[^\s"'<>]+$/i.test(v) && URL.canParse(v), { message: 'must be an http:// or https:// URL' });

/** A web link or nothing: `""` clears it. */
export const optionalWebUrl = () => z.union([z.literal(''), webUrl()]);

/** An address on one or more lines (separated by `\n`). */
export const addressText = () => text().trim().max(500).describe('lines separated by \\n');

/** The links a profile answers: only the networks that have one. */
const link = z.string().optional();
export const socialSchema = z
  .object({ linkedin: link, x: link, facebook: link, instagram: link, youtube: link, github: link })
  .meta({ id: 'SocialLinks', description: 'profile links by network; an absent network has none' });

/** A change of links: merged into the current ones; `null` (or `""`) removes a network's link. */
const linkChange = () => z.union([webUrl(), z.literal(''), z.null()]).optional();
export const socialPatchSchema = z
  .strictObject({ linkedin: linkChange(), x: linkChange(), facebook: linkChange(), instagram: linkChange(), youtube: linkChange(), github: linkChange() })
  .describe('merged into the current links: a network set to null or "" loses its link; networks not named keep theirs');

/** Applies a links patch (`null` or `""` removes) to the current links. */
export function mergeLinks(current: Record<string, string>, patch: Record<string, string | null | undefined>): Record<string, string> {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null || value === '') delete next[key];
    else next[key] = value;
  }
  return next;
}

/** The user fields members may be allowed to change on themselves; the first six are the default. */
export const SELF_SERVICE_CHOICES = ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social', 'title', 'department', 'website', 'address'] as const;
export type SelfServiceField = (typeof SELF_SERVICE_CHOICES)[number];
export const DEFAULT_SELF_SERVICE: readonly SelfServiceField[] = SELF_SERVICE_CHOICES.slice(0, 6);

export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,31}$/;
export const MAX_CUSTOM_FIELDS = 50;

export const customFieldSchema = z
  .strictObject({
    key: text().regex(CUSTOM_FIELD_KEY, 'must match ^[a-z][a-z0-9_]{0,31}$ (a lower-case letter, then letters, digits or _)'),
    label: text().trim().min(1).max(100),
    type: z.enum(['text', 'url', 'phone']).describe('text: up to 500 characters; url: http(s); phone: digits, spaces and + ( ) . / -'),
    selfService: z.boolean().default(false).describe('members may set their own value'),
  })
  .meta({ id: 'CustomField', examples: [{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }] });

export const customFieldListSchema = z
  .array(customFieldSchema)
  .max(MAX_CUSTOM_FIELDS)
  .refine((list) => new Set(list.map((f) => f.key)).size === list.length, { message: 'each key once' })
  .meta({
    id: 'CustomFields',
    examples: [[{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }, { key: 'desk', label: 'Desk', type: 'text', selfService: false }]],
  });
