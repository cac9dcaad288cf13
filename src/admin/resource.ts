// What the staff API answers: an org with its billing fields and plan status, a staff member, a
// staff audit entry. The one place their rows become resources.
import { overridesOf, toOrg, type Org, type StaffOverridesView } from '../orgs/module.ts';
import { planFacts, planStatus, type BlockedBy } from '../billing/module.ts';
import type { OrgWithUsage } from '../store/repositories/orgs.ts';
import type { StaffStatus } from '../store/repositories/staff.ts';
import type { AuditRow, StaffRow } from '../store/schema.ts';

export interface AdminOrg extends Org {
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  billingEventAt: string | null;
  planStatus: { writable: boolean; blockedBy: BlockedBy; seats: { limit: number; used: number } };
  /** Staff settings (PATCH /v1/admin/orgs/{orgId}); `seats` and `plan` above are the effective values. */
  overrides: StaffOverridesView;
}

/** `now` decides whether a grace period has ended. */
export function toAdminOrg(org: OrgWithUsage, now: Date): AdminOrg {
  const status = planStatus(planFacts(org), now);
  return {
    ...toOrg(org),
    providerCustomerId: org.provider_customer_id,
    providerSubscriptionId: org.provider_subscription_id,
    billingEventAt: org.billing_event_at?.toISOString() ?? null,
    planStatus: { writable: status.writable, blockedBy: status.blockedBy, seats: status.seats },
    overrides: overridesOf(org),
  };
}

export interface StaffMember {
  userId: string;
  email: string;
  name: string;
  status: StaffStatus;
  mfaEnabled: boolean;
  createdAt: string;
  disabledAt: string | null;
  /** Only when no mail is configured, in the answer to an invitation. */
  invitationUrl?: string;
}

export function staffStatus(row: Pick<StaffRow, 'deleted_at' | 'password_hash'>): StaffStatus {
  if (row.deleted_at) return 'disabled';
  return row.password_hash ? 'active' : 'invited';
}

export function toStaffMember(row: StaffRow, invitationUrl?: string | undefined): StaffMember {
  return {
    userId: row.id,
    email: row.email,
    name: row.name,
    status: staffStatus(row),
    mfaEnabled: row.totp_secret !== null,
    createdAt: row.created_at.toISOString(),
    disabledAt: row.deleted_at?.toISOString() ?? null,
    ...(invitationUrl ? { invitationUrl } : {}),
  };
}

export interface StaffAuditEntry {
  at: string;
  orgId: string | null;
  actor: { type: 'staff'; id: string };
  action: string;
  targetId: string | null;
  correlationId: string | null;
  changes: string[];
}

export const toStaffAuditEntry = (r: AuditRow): StaffAuditEntry => ({
  at: r.at.toISOString(),
  orgId: r.org_id,
  actor: { type: 'staff', id: r.actor_id },
  action: r.action,
  targetId: r.target_id,
  correlationId: r.correlation_id,
  changes: r.changes,
});
