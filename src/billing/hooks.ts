// The billing gate, a hook each write route lists after its guard: once an org's grace period has
// ended, writes answer 402 and reads still work (docs/guide.md, "Billing states").
import { AppError } from '../kernel/errors.ts';
import { accessOf, type BillingHooks } from '../http/guard.ts';
import type { OrgService } from '../orgs/module.ts';
import type { OrgWithUsage } from '../store/repositories/orgs.ts';
import { graceExpired, planFacts } from './gate.ts';

export function createBillingHooks(deps: { orgs: OrgService; clock: () => Date }): BillingHooks {
  /** The 402 of an org whose grace period has ended; undefined lets the write through. */
  const refusalOf = (org: OrgWithUsage): AppError | undefined => {
    if (!graceExpired(planFacts(org), deps.clock())) return undefined;
    return new AppError(
      'PAYMENT_REQUIRED',
      `The subscription is ${org.subscription_status} and its grace period ended at ${org.grace_period_ends_at?.toISOString()}: writes are blocked until the subscription is paid. Reads still work; see GET /v1/orgs/{orgId}/plan-status.`,
      { details: { blockedBy: 'grace_expired', gracePeriodEndsAt: org.grace_period_ends_at?.toISOString() } },
    );
  };
  return {
    // A callback hook: with the org's row cached (nearly always) it answers without a promise; it
    // runs on every write and render.
    writeGate(request, _reply, done) {
      let orgId: string;
      try {
        orgId = accessOf(request).orgId;
      } catch (err) {
        return done(err as Error);
      }
      const cached = deps.orgs.cached(orgId);
      if (cached) return done(refusalOf(cached));
      deps.orgs.require(orgId).then((org) => done(refusalOf(org)), done);
    },
  };
}
