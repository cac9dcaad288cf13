// Billing: the payment provider's events (the webhook, in webhooks/), each org's plan and its grace
// period, the gate that blocks writes once it ended, and the purge of old events.
import type { BillingHooks } from '../http/guard.ts';
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { OrgService } from '../orgs/module.ts';
import { createBillingService, type BillingService } from './service.ts';
import { createBillingHooks } from './hooks.ts';
import { billingRoutes } from './routes.ts';
import { requireFreeSeat } from './seats.ts';
import { graceExpired, planFacts } from './gate.ts';

export type { BlockedBy } from './gate.ts';

export { GRACE_STATUSES, planStatus } from './gate.ts';
export { eventSchema, parseEvent } from './event.ts';

export { graceExpired, planFacts, requireFreeSeat, type BillingService };

export type BillingModule = Module<BillingService> & { hooks: BillingHooks };

export function billingModule(core: Core, needs: { orgs: Module<OrgService> }): BillingModule {
  const { config, clock } = core;
  const orgs = needs.orgs.service;
  const billing = createBillingService({
    db: core.db,
    logger: core.logger,
    clock,
    gracePeriodS: config.gracePeriodS,
    dedupWindowS: config.webhookDedupS,
    invalidate: core.caches.invalidate,
  });
  return {
    name: 'billing',
    service: billing,
    hooks: createBillingHooks({ orgs, clock }),
    // Org (plan status) and staff routes (payment events).
    api: ({ guards }) => [billingRoutes({ guards, orgs, billing, quota: core.quota, clock })],
    timers: [() => billing.startPurging()],
  };
}
