import { z } from 'zod';
import { nullableTimestamp, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

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
  })
  .meta({ examples: [{ version: 3, name: 'Acme Group Ltd' }] });
