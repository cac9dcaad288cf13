// The staff API's shapes: an org as staff see it (with its billing fields and plan status), a staff
// member, a staff audit entry.
import { z } from 'zod';
import { nullableTimestamp, text, timestamp, uuid } from '../http/schemas.ts';
import { orgSchema, staffOverridesSchema } from '../orgs/module.ts';
import { EXAMPLE } from '../http/examples.ts';

const orgExample = (z.globalRegistry.get(orgSchema)?.examples as Record<string, unknown>[] | undefined)?.[0] ?? {};

/** `true` / `false` in a query string. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

export const adminOrgSchema = orgSchema
  .extend({
    providerCustomerId: z.string().nullable().describe("the payment provider's customer id, once an event linked one"),
    providerSubscriptionId: z.string().nullable(),
    billingEventAt: nullableTimestamp.describe('`created` of the newest payment event applied'),
    planStatus: z.object({
      writable: z.boolean(),
      blockedBy: z.enum(['seats', 'grace_expired']).nullable(),
      seats: z.object({ limit: z.number().int(), used: z.number().int() }),
    }),
    overrides: staffOverridesSchema.describe('staff settings (`PATCH /v1/admin/orgs/{orgId}`); `seats` and `plan` above are the effective values'),
  })
  .meta({
    id: 'AdminOrg',
    examples: [
      {
        ...orgExample,
        providerCustomerId: 'cus_R4nd0mCustomer',
        providerSubscriptionId: 'sub_1QxYz2AbCdEfGh',
        billingEventAt: EXAMPLE.updatedAt,
        planStatus: { writable: true, blockedBy: null, seats: { limit: 50, used: 12 } },
        overrides: { seatsOverride: null, planOverride: null, trialEndsAt: null, quotaPerMonth: null },
      },
    ],
  });

export const adminOrgOverridesSchema = z
  .strictObject({
    seatsOverride: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .nullable()
      .optional()
      .describe("the org's seats whatever its payment events say; null: the events' again"),
    planOverride: text().trim().min(1).max(100).nullable().optional().describe("the org's plan whatever its payment events say; null: the events' again"),
    trialEndsAt: z.iso.datetime({ offset: true }).nullable().optional().describe('while ahead, the org stays writable (a trial extended by staff); null: none'),
    quotaPerMonth: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .nullable()
      .optional()
      .describe('API-key requests a month; 0: no quota; null: `QUOTA_REQUESTS_PER_MONTH`'),
  })
  .meta({ examples: [{ seatsOverride: 200, planOverride: null, quotaPerMonth: 500000 }] });

export const adminOrgCreateSchema = z
  .strictObject({
    name: text().trim().min(1).max(200),
    seats: z.number().int().min(0).max(1_000_000).default(5),
    plan: text().trim().min(1).max(100).default('trial'),
    ownerEmail: z.email().max(254),
    ownerName: text().trim().max(200).optional(),
  })
  .meta({ examples: [{ name: 'Acme Ltd', seats: 50, plan: 'business', ownerEmail: 'owner@acme.example', ownerName: 'Ada Lovelace' }] });

export const adminOrgCreatedSchema = z
  .object({
    orgId: uuid,
    ownerUserId: uuid,
    apiKey: z.object({ keyId: uuid, key: z.string() }),
    ownerInvitationUrl: z.string().optional().describe("the owner's invitation link, only when no mail is configured (SMTP_URL unset): hand it over"),
  })
  .meta({
    examples: [
      { orgId: EXAMPLE.orgId, ownerUserId: EXAMPLE.userId, apiKey: { keyId: EXAMPLE.keyId, key: 'svc_prod_Xq3v9Jk2mP8rT5wZ1yB4nC7dF0gH6jL2sA9eR3uV5xY' } },
    ],
  });

const staffExample = {
  userId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  email: 'grace@operator.example',
  name: 'Grace Hopper',
  status: 'active',
  mfaEnabled: true,
  createdAt: EXAMPLE.createdAt,
  disabledAt: null,
};

export const staffSchema = z
  .object({
    userId: uuid,
    email: z.string(),
    name: z.string(),
    status: z.enum(['invited', 'active', 'disabled']).describe('invited: no password chosen yet; disabled: can no longer sign in'),
    mfaEnabled: z.boolean(),
    createdAt: timestamp,
    disabledAt: nullableTimestamp,
  })
  .meta({
    id: 'StaffMember',
    examples: [staffExample],
  });

export const invitedStaffSchema = staffSchema
  .extend({ invitationUrl: z.string().optional().describe('the invitation link, only when no mail is configured (SMTP_URL unset): hand it over') })
  .meta({ examples: [{ ...staffExample, status: 'invited', mfaEnabled: false }] });

export const staffInviteSchema = z
  .strictObject({ email: z.email().max(254), name: text().trim().max(200).default('') })
  .meta({ examples: [{ email: 'grace@operator.example', name: 'Grace Hopper' }] });

export const staffAuditEntrySchema = z
  .object({
    at: timestamp,
    orgId: z.string().nullable().describe('the org acted on; null for an action on staff, or on an event of no org'),
    actor: z.object({ type: z.literal('staff'), id: z.string() }),
    action: z.string(),
    targetId: z.string().nullable(),
    correlationId: z.string().nullable(),
    changes: z.array(z.string()),
  })
  .meta({
    id: 'StaffAuditEntry',
    examples: [
      {
        at: EXAMPLE.updatedAt,
        orgId: EXAMPLE.orgId,
        actor: { type: 'staff', id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' },
        action: 'org.create',
        targetId: EXAMPLE.orgId,
        correlationId: EXAMPLE.correlationId,
        changes: ['name', 'plan', 'seats'],
      },
    ],
  });
