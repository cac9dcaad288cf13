// An org as the API answers it: the one place an orgs row (with its live user count) becomes the
// resource. The staff view adds its billing fields to it (src/admin/resource.ts).
import type { OrgWithUsage } from '../store/repositories/orgs.ts';
import type { CustomField } from '../store/schema.ts';
import type { SelfServiceField } from '../lib/profile.ts';

export interface Org {
  orgId: string;
  name: string;
  subscriptionStatus: string;
  plan: string;
  priceVersion: string | null;
  seats: number;
  seatsUsed: number;
  overSeatLimit: boolean;
  currentPeriodEnd: string | null;
  gracePeriodEndsAt: string | null;
  website: string;
  address: string;
  social: Record<string, string>;
  logoImageId: string | null;
  selfServiceFields: SelfServiceField[];
  fields: CustomField[];
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Shown to staff only: their settings behind the effective `seats` and `plan` (PATCH /v1/admin/orgs/{orgId}). */
  overrides?: StaffOverridesView;
}

export interface StaffOverridesView {
  seatsOverride: number | null;
  planOverride: string | null;
  trialEndsAt: string | null;
  quotaPerMonth: number | null;
}

export function overridesOf(org: OrgWithUsage): StaffOverridesView {
  return {
    seatsOverride: org.seats_override,
    planOverride: org.plan_override,
    trialEndsAt: org.trial_ends_at?.toISOString() ?? null,
    quotaPerMonth: org.quota_per_month,
  };
}

export function toOrg(org: OrgWithUsage): Org {
  return {
    orgId: org.id,
    name: org.name,
    subscriptionStatus: org.subscription_status,
    plan: org.plan,
    priceVersion: org.price_version,
    seats: org.seats,
    seatsUsed: org.seats_used,
    overSeatLimit: org.over_seat_limit,
    currentPeriodEnd: org.current_period_end?.toISOString() ?? null,
    gracePeriodEndsAt: org.grace_period_ends_at?.toISOString() ?? null,
    website: org.website,
    address: org.address,
    social: org.social,
    logoImageId: org.logo_image_id,
    selfServiceFields: org.self_service_fields as SelfServiceField[],
    fields: org.fields,
    version: org.version,
    createdAt: org.created_at.toISOString(),
    updatedAt: org.updated_at.toISOString(),
  };
}
