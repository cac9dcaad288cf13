// The payment provider's webhook: signed events, handed to billing (outside the authenticated scope).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { BillingService } from '../billing/module.ts';
import { webhookRoutes } from './routes.ts';

export function webhooksModule(core: Core, needs: { billing: Module<BillingService> }): Module<undefined> {
  const { config } = core;
  return {
    name: 'webhooks',
    service: undefined,
    public: [
      webhookRoutes({
        billing: needs.billing.service,
        secret: config.webhookSecret,
        toleranceS: config.webhookToleranceS,
        clock: core.clock,
        metrics: core.metrics,
      }),
    ],
  };
}
