// Outbound webhooks (issue 30; docs/webhooks.md): endpoints an org registers, the events its changes
// and renders cause, delivered signed per Standard Webhooks.
//
// Deliveries run on a job queue of their own (the same durable `jobs` table and code as
// src/jobs/queue.ts, claiming only `webhook.drain`), so an endpoint that is slow to answer holds
// its own slots (at most 4 per endpoint) and never the mail, syncs and pushes of the main queue.
// Within this queue an org runs at most half the slots, and a drain gives its slot back to one that
// waits (slots.ts): another org's endpoints find a slot at once.
import type { Core } from '../core/core.ts';
import type { Module, Stop } from '../core/module.ts';
import type { SecretBox } from '../secrets/module.ts';
import { createJobQueue } from '../jobs/queue.ts';
import { listenToAudit } from '../audit/record.ts';
import { every } from '../lib/every.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';
import { drainRepo } from '../store/repositories/outbound-drain.ts';
import { createOutboundWebhookService, type OutboundWebhookService } from './service.ts';
import { createDrainHandler, RETRY_SCHEDULE_MS, TIMEOUT_MS } from './delivery.ts';
import { DRAIN_KIND, emitForAudit } from './events.ts';
import { createDeliverySlots } from './slots.ts';
import { RenderedEvents, type RenderedData } from './rendered.ts';
import { outboundWebhookRoutes } from './routes.ts';

export { emitEvents, recordFailedDeployment } from './events.ts';
export type { OutboundWebhookService, RenderedData, RenderedEvents };

/** Finished deliveries (and their events) are kept this long for the log, then purged hourly. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;
const PURGE_EVERY_MS = 3600_000;

/** Endpoints one instance sends to at the same time (each: 4 deliveries in flight at most); one org's endpoints take half at most (slots.ts). */
const DELIVERY_CONCURRENCY = 32;

export interface OutboundWebhooksTuning {
  /** Tests: shorter waits between attempts than the contract's 5 s … 10 h. */
  retryScheduleMs?: number[];
  /** Tests: a shorter limit than 10 s for an answer. */
  timeoutMs?: number;
  /** Tests: a longer window for counting renders than 1 s (rendered.ts), ended by `rendered.flush()`. */
  renderedWindowMs?: number;
  /** Tests: fewer endpoints sent to at once than 32 (the fairness tests fill them with a few hanging endpoints). */
  slots?: number;
}

/** The module, and what the render module tells of every signature served (`signature.rendered`). */
export type OutboundWebhooksModule = Module<OutboundWebhookService> & { rendered: RenderedEvents };

export function outboundWebhooksModule(core: Core, needs: { secrets: Module<SecretBox> }, tuning: OutboundWebhooksTuning = {}): OutboundWebhooksModule {
  const { db, clock, config } = core;
  const secrets = needs.secrets.service;
  const logger = core.logger.child({ component: 'outbound-webhooks' });
  const allowPrivate = config.webhookAllowPrivate;
  // Every audit entry, in its transaction, makes its events (events.ts).
  listenToAudit(emitForAudit);
  const service = createOutboundWebhookService({ db, clock, secrets, invalidate: core.caches.invalidate, allowPrivate });
  const rendered = new RenderedEvents({ db, caches: core.caches, clock, logger, windowMs: tuning.renderedWindowMs });
  // Woken when a drain is due (jobs/wakeups.ts): a delivery goes out as soon as its event commits.
  const concurrency = tuning.slots ?? DELIVERY_CONCURRENCY;
  const queue = createJobQueue({ db, logger, wakeups: core.wakeups, options: { ...config.jobs, concurrency } });
  const slots = createDeliverySlots({
    perOrg: Math.max(1, Math.floor(concurrency / 2)),
    saturated: () => queue.running >= concurrency,
    anyWaiting: () => drainRepo.anyDrainWaiting(db, DRAIN_KIND),
    logger,
  });
  const drain = createDrainHandler({
    db,
    clock,
    secrets,
    slots,
    options: { allowPrivate, retryScheduleMs: tuning.retryScheduleMs ?? RETRY_SCHEDULE_MS, timeoutMs: tuning.timeoutMs ?? TIMEOUT_MS },
  });
  queue.registerHandler(DRAIN_KIND, drain.handle);
  const worker = (): Stop => {
    if (!core.jobWorker) return async () => {};
    queue.start();
    return () => queue.stop();
  };
  const purge = (): Stop =>
    every(PURGE_EVERY_MS, () => outboundRepo.purgeFinished(db, new Date(clock().getTime() - DELIVERY_RETENTION_MS)), {
      logger,
      message: 'purging old webhook deliveries failed',
    });
  return {
    name: 'outbound-webhooks',
    service,
    rendered,
    api: ({ guards, billing }) => [outboundWebhookRoutes({ guards, billing, webhooks: service })],
    timers: [worker, purge],
    async close() {
      await queue.stop();
      drain.close();
      await rendered.close();
    },
  };
}
