import { z } from 'zod';
import { listQuery, text, timestamp, userParams, uuid, versionField } from '../http/schemas.ts';
import { USER_SORTS } from '../store/schema.ts';
import { EXAMPLE } from '../http/examples.ts';
import { addressText, CUSTOM_FIELD_KEY, optionalWebUrl, socialPatchSchema, socialSchema } from '../http/profile-schemas.ts';

export const roleSchema = z.enum(['member', 'admin', 'owner']);

const profile = {
  name: text().trim().max(200),
  title: text().trim().max(200),
  department: text().trim().max(200),
  phone: text().trim().max(50),
  mobile: text().trim().max(50),
  pronouns: text().trim().max(50),
  website: optionalWebUrl(),
  address: addressText(),
};

/** Custom field values by key (the org's `fields`); checked against the fields' types by the service. */
const attributeKey = text().regex(CUSTOM_FIELD_KEY, 'must be a custom field key (^[a-z][a-z0-9_]{0,31}$)');
const attributeValue = text().trim().max(500);
export const attributesSchema = z.record(z.string(), z.string()).describe("values of the org's custom fields, by key").meta({ id: 'UserAttributes' });
const attributesPatch = z
  .record(attributeKey, z.union([attributeValue, z.null()]))
  .describe('merged into the current values: a key set to null (or "") is removed; keys must be fields the org defined');
const photoImageId = uuid.nullable().describe("an image of the org's (POST …/photo uploads one); null removes the photo");

export const userSchema = z
  .object({
    userId: uuid,
    orgId: uuid,
    email: z.email(),
    name: z.string(),
    role: roleSchema,
    title: z.string(),
    department: z.string(),
    phone: z.string(),
    mobile: z.string(),
    pronouns: z.string(),
    website: z.string(),
    address: z.string().describe('lines separated by \\n'),
    photoImageId: uuid.nullable().describe('the profile photo (`{base_url}/v1/images/{photoImageId}`), or null'),
    social: socialSchema,
    attributes: attributesSchema,
    mfaEnabled: z.boolean(),
    status: z
      .enum(['invited', 'active', 'suspended'])
      .describe(
        '`invited` until the user has a password (accepted the invitation, reset it, or was given one); `suspended`: kept, but no sign-in, no seat and no signature (an admin, SCIM `active: false` or a directory set it)',
      ),
    emailVerified: z.boolean().describe('the user proved the address (an invitation or a reset by mail); false again when it changes'),
    invitationUrl: z.string().optional().describe('admins only, while the user is invited and no mail carries the link (no SMTP_URL): the link to hand over'),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'User',
    examples: [
      {
        userId: EXAMPLE.userId,
        orgId: EXAMPLE.orgId,
        email: 'ada@acme.example',
        name: 'Ada Lovelace',
        role: 'member',
        title: 'Engineer',
        department: 'Research',
        phone: '+44 20 7946 0000',
        mobile: '',
        pronouns: 'she/her',
        website: 'https://ada.example',
        address: '1 Example Street\nLondon',
        photoImageId: null,
        social: { linkedin: 'https://www.linkedin.com/in/ada' },
        attributes: { booking_link: 'https://cal.example/ada' },
        mfaEnabled: false,
        status: 'active',
        emailVerified: true,
        version: 1,
        createdAt: EXAMPLE.createdAt,
        updatedAt: EXAMPLE.updatedAt,
      },
    ],
  });

const temporaryPassword = text()
  .min(12, 'must have at least 12 characters')
  .max(200)
  .describe('a password the user must replace at first sign-in (admin-only)');

export const userCreateSchema = z
  .strictObject({
    email: z.email().max(254),
    temporaryPassword: temporaryPassword.optional(),
    role: roleSchema.default('member'),
    name: profile.name.default(''),
    title: profile.title.default(''),
    department: profile.department.default(''),
    phone: profile.phone.default(''),
    mobile: profile.mobile.default(''),
    pronouns: profile.pronouns.default(''),
    website: profile.website.default(''),
    address: profile.address.default(''),
    social: socialPatchSchema.optional(),
    attributes: attributesPatch.optional(),
  })
  .meta({ examples: [{ email: 'ada@acme.example', name: 'Ada Lovelace', title: 'Engineer', department: 'Research', phone: '+44 20 7946 0000' }] });

export const userPatchSchema = z
  .strictObject({
    version: versionField,
    temporaryPassword: temporaryPassword.optional(),
    email: z.email().max(254).optional(),
    role: roleSchema.optional(),
    name: profile.name.optional(),
    title: profile.title.optional(),
    department: profile.department.optional(),
    phone: profile.phone.optional(),
    mobile: profile.mobile.optional(),
    pronouns: profile.pronouns.optional(),
    website: profile.website.optional(),
    address: profile.address.optional(),
    photoImageId: photoImageId.optional(),
    social: socialPatchSchema.optional(),
    attributes: attributesPatch.optional(),
    status: z
      .enum(['active', 'suspended'])
      .optional()
      .describe('admin-only: `suspended` ends the sessions and frees the seat; `active` restores (402 when every seat is taken)'),
  })
  .meta({
    examples: [{ version: 1, title: 'Principal Engineer', pronouns: 'she/her', social: { x: null }, attributes: { booking_link: 'https://cal.example/ada' } }],
  });

/** The users list's search and filters (docs/api.md, "Search and filters"); each narrows the others. */
export const userListQuery = listQuery.extend({
  q: text().trim().max(200).optional().describe('a part of the name or the email, case-insensitive (empty: no search)'),
  role: roleSchema.optional(),
  department: text().trim().max(200).optional().describe('this department exactly, case-insensitive (empty: users without one)'),
  status: z.enum(['invited', 'active', 'suspended']).optional().describe('invited: has not chosen a password yet; suspended: no sign-in, seat or signature'),
  group: uuid.optional().describe('members of this group only (a `groupId` of GET /v1/orgs/{orgId}/groups)'),
  sort: z
    .enum(USER_SORTS)
    .default('created')
    .describe(
      'created: oldest first (the default); name, role (owner, admin, member), department or status, `-` first for descending. A cursor belongs to the order it was issued in.',
    ),
});

// One row of a users import: the create schema's checks, every field but the email optional. An
// empty value means "not given": the field keeps its value on update and takes its default on create.
const emptyIsAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
export const importRowSchema = z.strictObject({
  email: userCreateSchema.shape.email,
  role: z.preprocess(emptyIsAbsent, roleSchema.optional()),
  name: z.preprocess(emptyIsAbsent, profile.name.optional()),
  title: z.preprocess(emptyIsAbsent, profile.title.optional()),
  department: z.preprocess(emptyIsAbsent, profile.department.optional()),
  phone: z.preprocess(emptyIsAbsent, profile.phone.optional()),
  mobile: z.preprocess(emptyIsAbsent, profile.mobile.optional()),
  pronouns: z.preprocess(emptyIsAbsent, profile.pronouns.optional()),
  website: z.preprocess(emptyIsAbsent, profile.website.optional()),
  address: z.preprocess(emptyIsAbsent, profile.address.optional()),
});

export { userParams };
