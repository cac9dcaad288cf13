// The billing gate, a hook each write route lists after its guard: once an org's grace period has
// ended, writes answer 402 and reads still work (docs/guide.md, "Billing states").
import { AppError } from '../kernel/errors.ts';
import { accessOf, type BillingHooks } from '../http/guard.ts';
import type { OrgService } from '../orgs/module.ts';
import { graceExpired, planFacts } from './gate.ts';

export function createBillingHooks(deps: { orgs: OrgService; clock: () => Date }): BillingHooks {
  return {
    async writeGate(request) {
      const org = await deps.orgs.require(accessOf(request).orgId);
      if (!graceExpired(planFacts(org), deps.clock())) return;
      throw new AppError(
        'PAYMENT_REQUIRED',
        `The subscription is ${org.subscription_status} and its grace period ended at ${org.grace_period_ends_at?.toISOString()}: writes are blocked until the subscription is paid. Reads still work; see GET /v1/orgs/{orgId}/plan-status.`,
        { details: { blockedBy: 'grace_expired', gracePeriodEndsAt: org.grace_period_ends_at?.toISOString() } },
      );
    },
  };
}
