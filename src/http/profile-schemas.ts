// The shapes of a profile that users and orgs share (docs/api.md, "Profiles"): web links, the
// social networks, the org's custom fields and the user fields members may edit themselves.
import { z } from 'zod';
import { text } from './schemas.ts';
import { CUSTOM_FIELD_KEY, MAX_CUSTOM_FIELDS, SELF_SERVICE_CHOICES } from '../lib/profile.ts';
import { isWebLink, MAX_LINK_CHARS } from '../lib/track-mark.ts';

export { SELF_SERVICE_CHOICES, CUSTOM_FIELD_KEY };

/** A page on the web: http or https, nothing a mail client would run (javascript:, data:). */
export const webUrl = () =>
  text()
    .trim()
    .max(MAX_LINK_CHARS)
    .refine((v) => isWebLink(v) && URL.canParse(v), { message: 'must be an http:// or https:// URL' });

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
    examples: [
      [
        { key: 'booking_link', label: 'Booking link', type: 'url', selfService: true },
        { key: 'desk', label: 'Desk', type: 'text', selfService: false },
      ],
    ],
  });
