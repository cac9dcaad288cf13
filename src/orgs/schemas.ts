import { z } from 'zod';
import { iso, isoOrNull, nullableTimestamp, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import type { OrgWithUsage } from '../store/repositories/orgs.ts';

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
  })
  .meta({ id: 'Org' });

export const orgPatchSchema = z.strictObject({
  version: versionField,
  name: text().trim().min(1).max(200).optional(),
});

export function presentOrg(org: OrgWithUsage): z.infer<typeof orgSchema> {
  return {
    orgId: org.id,
    name: org.name,
    subscriptionStatus: org.subscription_status,
    plan: org.plan,
    priceVersion: org.price_version,
    seats: org.seats,
    seatsUsed: org.seats_used,
    overSeatLimit: org.over_seat_limit,
    currentPeriodEnd: isoOrNull(org.current_period_end),
    gracePeriodEndsAt: isoOrNull(org.grace_period_ends_at),
    version: org.version,
    createdAt: iso(org.created_at),
    updatedAt: iso(org.updated_at),
  };
}
