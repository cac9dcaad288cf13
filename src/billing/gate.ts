// Which writes billing allows (docs/guide.md, "Billing states").

/** Statuses in which a grace period runs, and past its end writes are blocked. */
export const GRACE_STATUSES: ReadonlySet<string> = new Set(['past_due', 'canceled', 'unpaid', 'incomplete_expired', 'paused']);

export interface PlanFacts {
  subscriptionStatus: string;
  gracePeriodEndsAt: Date | null;
  seats: number;
  seatsUsed: number;
  /** A staff-set trial end: while it is ahead, the org stays writable (DECISIONS wave 3, "Staff overrides"). */
  trialEndsAt?: Date | null;
}

/** The facts of an org row (with its live user count) that the gate looks at. */
export function planFacts(org: {
  subscription_status: string;
  grace_period_ends_at: Date | null;
  seats: number;
  seats_used: number;
  trial_ends_at?: Date | null;
}): PlanFacts {
  return {
    subscriptionStatus: org.subscription_status,
    gracePeriodEndsAt: org.grace_period_ends_at,
    seats: org.seats,
    seatsUsed: org.seats_used,
    trialEndsAt: org.trial_ends_at ?? null,
  };
}

export type BlockedBy = 'seats' | 'grace_expired' | null;

/** Writes stop when a grace period has ended while the org is still not paying. */
export function graceExpired(org: PlanFacts, now: Date): boolean {
  if (org.trialEndsAt && org.trialEndsAt > now) return false;
  return GRACE_STATUSES.has(org.subscriptionStatus) && org.gracePeriodEndsAt !== null && org.gracePeriodEndsAt <= now;
}

export function planStatus(org: PlanFacts, now: Date) {
  const expired = graceExpired(org, now);
  const blockedBy: BlockedBy = expired ? 'grace_expired' : org.seatsUsed >= org.seats ? 'seats' : null;
  return {
    subscriptionStatus: org.subscriptionStatus,
    writable: !expired,
    blockedBy,
    seats: { limit: org.seats, used: org.seatsUsed },
    gracePeriodEndsAt: org.gracePeriodEndsAt ? org.gracePeriodEndsAt.toISOString() : null,
  };
}
