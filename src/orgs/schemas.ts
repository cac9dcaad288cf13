import { z } from 'zod';
import { nullableTimestamp, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import { addressText, customFieldListSchema, optionalWebUrl, SELF_SERVICE_CHOICES, socialPatchSchema, socialSchema } from '../http/profile-schemas.ts';

const selfServiceFields = z
  .array(z.enum(SELF_SERVICE_CHOICES))
  .max(SELF_SERVICE_CHOICES.length)
  .refine((list) => new Set(list).size === list.length, { message: 'each field once' })
  .describe('the user fields members may change on themselves (custom fields say so each, with `selfService`)');

/** Staff settings behind an org's effective seats and plan (PATCH /v1/admin/orgs/{orgId}). */
export const staffOverridesSchema = z.object({
  seatsOverride: z.number().int().nullable(),
  planOverride: z.string().nullable(),
  trialEndsAt: nullableTimestamp,
  quotaPerMonth: z.number().int().nullable().describe('null: `QUOTA_REQUESTS_PER_MONTH`; 0: no quota'),
});

export const orgSchema = z
  .object({
    orgId: uuid,
    name: z.string(),
    subscriptionStatus: z.string(),
    plan: z.string(),
    priceVersion: z.string().nullable(),
    seats: z.number().int(),
    seatsUsed: z.number().int(),
    overSeatLimit: z.boolean(),
    currentPeriodEnd: nullableTimestamp,
    gracePeriodEndsAt: nullableTimestamp,
    website: z.string(),
    address: z.string().describe('lines separated by \\n'),
    social: socialSchema,
    logoImageId: uuid.nullable().describe('the logo (`{base_url}/v1/images/{logoImageId}`), or null'),
    selfServiceFields,
    fields: customFieldListSchema.describe('the custom fields (change them with PUT …/fields)'),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
    overrides: staffOverridesSchema.optional().describe('to staff only: their settings behind the effective `seats` and `plan`'),
  })
  .meta({
    id: 'Org',
    examples: [
      {
        orgId: EXAMPLE.orgId,
        name: 'Acme Ltd',
        subscriptionStatus: 'active',
        plan: 'business',
        priceVersion: 'price_2026_01',
        seats: 50,
        seatsUsed: 12,
        overSeatLimit: false,
        currentPeriodEnd: '2026-02-05T09:30:00.000Z',
        gracePeriodEndsAt: null,
        website: 'https://acme.example',
        address: '1 Example Street\nLondon',
        social: { linkedin: 'https://www.linkedin.com/company/acme' },
        logoImageId: null,
        selfServiceFields: ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social'],
        fields: [{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }],
        version: 3,
        createdAt: EXAMPLE.createdAt,
        updatedAt: EXAMPLE.updatedAt,
      },
    ],
  });

export const orgPatchSchema = z
  .strictObject({
    version: versionField,
    name: text().trim().min(1).max(200).optional(),
    website: optionalWebUrl().optional(),
    address: addressText().optional(),
    social: socialPatchSchema.optional(),
    logoImageId: uuid.nullable().optional().describe("one of the org's images, or null"),
    selfServiceFields: selfServiceFields.optional(),
  })
  .meta({ examples: [{ version: 3, name: 'Acme Group Ltd', website: 'https://acme.example', social: { x: null } }] });
