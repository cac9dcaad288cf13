// Outbound webhooks (issue 30; docs/webhooks.md): endpoints an org registers, the events its changes
// and renders cause, delivered signed per Standard Webhooks. What the composition root makes, and
// what it starts and stops.
//
// Deliveries run on a job queue of their own (the same durable `jobs` table and code as
// src/jobs/queue.ts, claiming only `webhook.drain`), so an endpoint that is slow to answer holds
// its own slots (at most 4 per endpoint) and never the mail, syncs and pushes of the main queue;
// another org's endpoints keep the rest of this queue's slots.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../lib/clock.ts';
import type { Caches } from '../cache/namespaces.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { createJobQueue, type QueueOptions } from '../jobs/queue.ts';
import { createOutboundWebhookService, type OutboundWebhookService } from './service.ts';
import { createDrainHandler, RETRY_SCHEDULE_MS, TIMEOUT_MS } from './delivery.ts';
import { DRAIN_KIND } from './events.ts';
import { RenderedEvents } from './rendered.ts';
import { every } from '../lib/every.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';

/** Finished deliveries (and their events) are kept this long for the log, then purged hourly. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;
const PURGE_EVERY_MS = 3600_000;

/** Deliveries one instance sends at the same time, across endpoints (each endpoint: 4 at most). */
const DELIVERY_CONCURRENCY = 32;

export interface OutboundWebhooksOverrides {
  /** Tests: shorter waits between attempts than the contract's 5 s … 10 h. */
  retryScheduleMs?: number[];
  /** Tests: a shorter limit than 10 s for an answer. */
  timeoutMs?: number;
}

export interface OutboundWebhooksModule {
  service: OutboundWebhookService;
  /** The render service's `onRendered`. */
  rendered: RenderedEvents;
  /** Starts the delivery worker. */
  start(): void;
  /** Stops the worker (in-flight deliveries go back to the queue) and writes buffered events. */
  close(): Promise<void>;
}

export function createOutboundWebhooksModule(deps: {
  db: Db;
  logger: Logger;
  clock: Clock;
  caches: Caches;
  secrets: SecretBox;
  allowPrivate: boolean;
  jobs: Partial<QueueOptions>;
  overrides?: OutboundWebhooksOverrides | undefined;
}): OutboundWebhooksModule {
  const { db, clock, secrets } = deps;
  const logger = deps.logger.child({ component: 'outbound-webhooks' });
  const service = createOutboundWebhookService({ db, clock, secrets, invalidate: deps.caches.invalidate, allowPrivate: deps.allowPrivate });
  const rendered = new RenderedEvents({ db, caches: deps.caches, clock, logger });
  const queue = createJobQueue({
    db,
    logger,
    // A delivery is due at once: looked for at least 4 times a second.
    options: { ...deps.jobs, concurrency: DELIVERY_CONCURRENCY, pollMs: Math.min(deps.jobs.pollMs ?? 1000, 250) },
  });
  const drain = createDrainHandler({
    db,
    clock,
    secrets,
    options: { allowPrivate: deps.allowPrivate, retryScheduleMs: deps.overrides?.retryScheduleMs ?? RETRY_SCHEDULE_MS, timeoutMs: deps.overrides?.timeoutMs ?? TIMEOUT_MS },
  });
  queue.registerHandler(DRAIN_KIND, drain.handle);
  let stopPurging: (() => Promise<void>) | undefined;
  return {
    service,
    rendered,
    start() {
      queue.start();
      stopPurging ??= every(PURGE_EVERY_MS, () => outboundRepo.purgeFinished(db, new Date(clock().getTime() - DELIVERY_RETENTION_MS)), {
        logger,
        message: 'purging old webhook deliveries failed',
      });
    },
    async close() {
      await stopPurging?.();
      await queue.stop();
      drain.close();
      await rendered.close();
    },
  };
}
