// Delivering: a `webhook.drain` job per endpoint with work (events.ts queues it in the transaction
// that wrote the deliveries) sends the endpoint's due deliveries, taken in batches by one worker at
// a time across every instance (the repository's claimBatch) and sent at most CAP at once (topped up
// under the same claim as deliveries fall due meanwhile), and ends when none is due; when the next
// is a scheduled retry, it queues a drain for that time. A delivery is leased while in flight: an instance that dies
// mid-send leaves it to be sent again (at least once; the same `webhook-id` lets receivers notice).
// A drain shares the instance's slots fairly (slots.ts): at most its org's share, and it gives its
// slot back, queueing itself again, when another drain waits; each endpoint has its own sockets (agents.ts).
//
// Retries (docs/webhooks.md, "Retries"): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the
// attempts that failed, then `failed`. An endpoint none of whose attempts succeeded for 3 days is
// disabled (with an audit entry). Times come from the injected clock.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DeliveryAttempt, OutboundEndpointRow } from '../store/schema.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';
import { drainRepo } from '../store/repositories/outbound-drain.ts';
import { enqueue, JobDeferredError, type JobHandler } from '../jobs/queue.ts';
import { recordAudit } from '../audit/record.ts';
import { DRAIN_KIND } from './events.ts';
import { openSecrets, signedHeaders, signingSecrets, type EndpointSecrets } from './signing.ts';
import { resolveTarget, TargetRefused, type ResolvedTarget } from './target.ts';
import { send } from './send.ts';
import { createAgentPool, type EndpointAgents } from './agents.ts';
import { DEFER_MS, type DeliverySlots, type SlotLease } from './slots.ts';

export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000];
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
/** Deliveries of one endpoint in flight at once, across instances. */
export const CAP = 4;
export const TIMEOUT_MS = 10_000;
/** Deliveries one worker takes at once (each claim costs a transaction; sending is still CAP at a time). */
const BATCH = 32;
/** A drain that finds another worker sending looks again this often, this many times, before it ends. */
const HELD_WAIT_MS = 100;
const HELD_TRIES = 100;
/** How often a worker with fewer than CAP in flight looks for deliveries due since its claim: at first, and at most (doubling while none is). */
const TOP_UP_EVERY_MS = 100;
const TOP_UP_MAX_MS = 2_000;
/** How long taken deliveries stay taken without renewal (renewed while the worker sends them). */
const LEASE_MS = TIMEOUT_MS + 5_000;
const RENEW_EVERY_MS = 5_000;
/**
 * How stale the endpoint a batch sends to may get: it is read again before a delivery once this
 * much has passed, so a DELETE, a disable, a new URL or a rotated secret applies to the deliveries
 * not yet sent (a batch to a receiver that hangs lasts minutes), not only to the next batch.
 */
const RECHECK_MS = 1_000;

type Prepared = { target: Promise<ResolvedTarget>; secrets: () => EndpointSecrets };
type Claimed = { id: string; event_id: string; body: string; lease_token: string | null; attempt_count: number };
/** What a drain runs with: its endpoint's agents, and its slot (asked whether to give it back). */
type Turn = { agents: EndpointAgents; slot: SlotLease };

export interface DeliveryOptions {
  allowPrivate: boolean;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
}

export function createDrainHandler(deps: { db: Db; clock: Clock; secrets: SecretBox; slots: DeliverySlots; options: DeliveryOptions }): {
  handle: JobHandler<{ endpointId: string }>;
  close(): void;
} {
  const { db, clock, options } = deps;
  // Connections kept open between deliveries (each to an address target.ts checked for its first request).
  const agents = createAgentPool(CAP);

  /**
   * What every delivery of a batch shares, made once per batch (a batch is sent within seconds):
   * the opened secrets, and the endpoint's address resolved and checked (target.ts).
   */
  function prepare(endpoint: OutboundEndpointRow): Prepared {
    const target = resolveTarget(endpoint.url, options.allowPrivate);
    target.catch(() => {}); // each attempt reports it
    let secrets: EndpointSecrets | undefined;
    return {
      target,
      secrets: () => (secrets ??= openSecrets(deps.secrets, endpoint.org_id, endpoint.sealed_secrets, endpoint.previous_until)),
    };
  }

  async function attempt(
    endpoint: OutboundEndpointRow,
    prepared: Prepared,
    delivery: Claimed,
    signal: AbortSignal,
    logger: Logger,
    health: { healthy: boolean },
    endpointAgents: EndpointAgents,
  ) {
    const at = clock();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let responseBody = '';
    try {
      const signing = signingSecrets(prepared.secrets(), at);
      const target = await prepared.target;
      const result = await send(target, signedHeaders(delivery.event_id, at, delivery.body, signing), delivery.body, options.timeoutMs, signal, endpointAgents);
      ({ status, error } = result);
      responseBody = result.body;
      if (error === null && (status === null || status < 200 || status > 299)) error = `HTTP ${status}`;
    } catch (err) {
      error = err instanceof TargetRefused ? err.message : `could not send: ${(err as Error).message}`;
      if (!(err instanceof TargetRefused)) logger.warn({ err, deliveryId: delivery.id }, 'webhook delivery failed before sending');
    }
    if (signal.aborted) return; // the lease runs out and the delivery is sent again
    const ok = error === null;
    const record: DeliveryAttempt = {
      at: at.toISOString(),
      responseStatus: status,
      durationMs: Math.round(performance.now() - started),
      error,
      ...(responseBody ? { responseBody } : {}),
    };
    const made = delivery.attempt_count + 1;
    const delay = options.retryScheduleMs[made - 1];
    const next = ok
      ? { state: 'succeeded' as const, nextAttemptAt: null }
      : delay === undefined
        ? { state: 'failed' as const, nextAttemptAt: null }
        : { state: 'pending' as const, nextAttemptAt: new Date(at.getTime() + delay) };
    if (!(await drainRepo.recordAttempt(db, delivery.id, delivery.lease_token ?? '', record, next))) return;
    if (ok) {
      if (health.healthy) return;
      health.healthy = true;
      return outboundRepo.markSuccess(db, endpoint.id, at);
    }
    health.healthy = false;
    const failingSince = await outboundRepo.markFailure(db, endpoint.id, at);
    if (at.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) await disable(endpoint, failingSince);
  }

  async function disable(endpoint: OutboundEndpointRow, since: Date) {
    const reason = `No delivery attempt succeeded since ${since.toISOString()} (3 days): disabled automatically.`;
    await db.transaction().execute(async (tx) => {
      const disabled = await outboundRepo.disable(tx, endpoint.id, reason);
      if (disabled)
        await recordAudit(
          tx,
          { orgId: endpoint.org_id, correlationId: null },
          { action: 'webhookEndpoint.disable', targetId: endpoint.id, changes: ['disabled', 'disabledReason'] },
        );
    });
  }

  /** The endpoint to send to now, or undefined once deleted or disabled; a new row is prepared again. */
  async function readEndpoint(endpointId: string, was?: { endpoint: OutboundEndpointRow; prepared: Prepared }) {
    const endpoint = await outboundRepo.endpointById(db, endpointId);
    if (!endpoint || endpoint.deleted_at || endpoint.disabled) return undefined;
    const same = was && was.endpoint.url === endpoint.url && was.endpoint.sealed_secrets === endpoint.sealed_secrets;
    return { endpoint, prepared: same ? was.prepared : prepare(endpoint), readAt: performance.now() };
  }

  /**
   * Sends one claimed batch, CAP at a time, renewing its lease meanwhile. A healthy endpoint's
   * success is not written again for every delivery (`health`), only after a failure. While some
   * are in flight and fewer than CAP, it takes deliveries that fell due since under the same claim
   * (`topUp`): a receiver slow to answer a claim of one would otherwise hold the rest back until
   * that one ended (up to the timeout), the other senders idle. When the drain should give its slot
   * back (slots.ts), the senders take no more; those not sent are handed back (`yielded`).
   */
  async function sendBatch(
    endpointId: string,
    token: string,
    deliveries: Claimed[],
    signal: AbortSignal,
    logger: Logger,
    turn: Turn,
  ): Promise<'more' | 'gone' | 'yielded'> {
    let current = await readEndpoint(endpointId);
    if (!current) return 'gone';
    const health = { healthy: current.endpoint.failing_since === null && current.endpoint.last_success_at !== null };
    const renewal = setInterval(() => {
      drainRepo.renewLease(db, token, LEASE_MS).catch((err: unknown) => logger.warn({ err }, 'could not renew the lease of webhook deliveries'));
    }, RENEW_EVERY_MS);
    const queue = [...deliveries];
    const senders = new Set<Promise<void>>();
    // Set when a sender failed (the database refused an outcome, say): the others send no more, since
    // an attempt whose outcome cannot be written is sent again anyway once its lease runs out.
    let failing = false;
    let yielded = false;
    const sender = async () => {
      while (!signal.aborted && !failing) {
        yielded ||= await turn.slot.shouldYield();
        if (yielded) return;
        if (current && performance.now() - current.readAt >= RECHECK_MS) current = await readEndpoint(endpointId, current);
        // Deleted or disabled meanwhile: the rest of the batch is not sent (its lease runs out; the drain then ends).
        if (!current) return;
        // Taken after the endpoint's check, not before: another sender may have taken the last one meanwhile.
        const delivery = queue.shift();
        if (!delivery) return;
        await attempt(current.endpoint, current.prepared, delivery, signal, logger, health, turn.agents);
      }
    };
    // Ends (`idle`) once every sender has, or one failed: a batch's end waits for no poll.
    const idle = new AbortController();
    const awake = AbortSignal.any([signal, idle.signal]);
    const startSenders = () => {
      for (let n = Math.min(CAP - senders.size, queue.length); n > 0; n--) {
        const running = sender().finally(() => senders.delete(running));
        // Handled here; settled() reports it.
        running.catch(() => {
          failing = true;
          idle.abort();
        });
        senders.add(running);
      }
    };
    /** Waits until no sender runs, those started meanwhile included; the first failure, if any. */
    const settled = async () => {
      let failure: { reason: unknown } | undefined;
      while (senders.size > 0) for (const r of await Promise.allSettled([...senders])) if (r.status === 'rejected') failure ??= { reason: r.reason };
      return failure;
    };
    const topUp = async () => {
      let waitMs = TOP_UP_EVERY_MS;
      while (!awake.aborted) {
        await sleep(waitMs, undefined, { signal: awake }).catch(() => {});
        if (awake.aborted || yielded || !current || senders.size >= CAP || queue.length > 0) continue;
        // Giving the slot back: nothing more is taken (senders see it as they end).
        if (await turn.slot.shouldYield()) continue;
        // A look without a lock first, and less often while nothing falls due (a receiver that
        // hangs for the whole timeout would otherwise cost a locking transaction every 0.1 s).
        const more = await topUpClaim(endpointId, token, CAP - senders.size, logger);
        waitMs = more.length > 0 ? TOP_UP_EVERY_MS : Math.min(waitMs * 2, TOP_UP_MAX_MS);
        queue.push(...more);
        startSenders();
      }
    };
    try {
      startSenders();
      const topping = topUp();
      let failed = await settled();
      idle.abort();
      await topping;
      // Those a top-up took as the last sender ended (awaited even after a failure: not `??=`).
      const later = await settled();
      failed ??= later;
      if (failed) throw failed.reason;
      // Not sent: free for the next claim at once (their lease need not run out).
      if (yielded && queue.length > 0)
        await drainRepo.releaseLeases(
          db,
          token,
          queue.map((d) => d.id),
        );
    } finally {
      clearInterval(renewal);
    }
    return yielded ? 'yielded' : current ? 'more' : 'gone';
  }

  /** Deliveries due since a claim, taken under it; none when none is due, or the look fails (they wait for the next claim). */
  async function topUpClaim(endpointId: string, token: string, count: number, logger: Logger): Promise<Claimed[]> {
    try {
      if (!(await drainRepo.anyDueFree(db, endpointId, token, clock()))) return [];
      return await drainRepo.claimMore(db, endpointId, token, clock(), count, LEASE_MS);
    } catch (err) {
      logger.warn({ err }, 'could not take more webhook deliveries under a claim');
      return [];
    }
  }

  /**
   * Sends the endpoint's due deliveries, batch after batch; waits a little while another worker sends
   * them. `yielded`: it gave its slot back to a drain that waits, with deliveries perhaps still due.
   */
  async function drain(endpointId: string, signal: AbortSignal, logger: Logger, turn: Turn): Promise<'done' | 'yielded'> {
    let held = 0;
    while (!signal.aborted) {
      if (await turn.slot.shouldYield()) return 'yielded';
      const claim = await drainRepo.claimBatch(db, endpointId, clock(), BATCH, LEASE_MS);
      if (claim.kind === 'none') return 'done';
      if (claim.kind === 'held') {
        if (++held > HELD_TRIES) return 'done';
        await sleep(HELD_WAIT_MS, undefined, { signal }).catch(() => {});
        continue;
      }
      held = 0;
      const sent = await sendBatch(endpointId, claim.token, claim.deliveries, signal, logger, turn);
      if (sent !== 'more') return sent === 'yielded' ? 'yielded' : 'done';
    }
    return 'done';
  }

  const handle: JobHandler<{ endpointId: string }> = async (job, ctx) => {
    const { endpointId } = job.payload;
    // Past its org's share of this instance's slots, or its endpoint drained here already: back on the queue a while (slots.ts).
    const slot = deps.slots.enter(job.orgId ?? '', endpointId);
    if (slot === 'org-full') throw new JobDeferredError("its org's webhook drains take their share of the delivery slots", DEFER_MS);
    if (slot === 'endpoint-busy') throw new JobDeferredError('a drain of this endpoint runs on this instance', DEFER_MS);
    const turn = { agents: agents.acquire(endpointId), slot };
    let ended: 'done' | 'yielded';
    try {
      ended = await drain(endpointId, ctx.signal, ctx.logger, turn);
    } finally {
      slot.release();
      agents.release(endpointId);
    }
    if (ctx.signal.aborted) return;
    const endpoint = await outboundRepo.endpointById(db, endpointId);
    if (!endpoint || endpoint.deleted_at || endpoint.disabled) return;
    // Gave its slot back: its turn comes again, after the drains that waited (those of other orgs go
    // first by the claim's round-robin; its own org's waited since before, and DEFER_MS ranks it after them).
    if (ended === 'yielded') {
      await enqueue(db, { kind: DRAIN_KIND, orgId: endpoint.org_id, payload: { endpointId }, delayMs: DEFER_MS, dedupeKey: `now:${endpointId}` });
      return;
    }
    const next = await drainRepo.nextDue(db, endpointId);
    if (next.kind === 'none') return;
    // In flight elsewhere (its lease may run out) or a retry scheduled: a drain for then. A retry's
    // time is on the service's clock (as the claim compares it); the queue claims by the database's,
    // so the drain is queued a delay away, measured there (a test's clock moved days ahead would
    // otherwise put it days away). One drain per lease wait, and per retry time.
    if (next.kind === 'now') {
      await enqueue(db, { kind: DRAIN_KIND, orgId: endpoint.org_id, payload: { endpointId }, delayMs: LEASE_MS, dedupeKey: `lease:${endpointId}` });
      return;
    }
    const delayMs = Math.max(0, next.at.getTime() - clock().getTime());
    await enqueue(db, { kind: DRAIN_KIND, orgId: endpoint.org_id, payload: { endpointId }, delayMs, dedupeKey: `at:${endpointId}:${next.at.toISOString()}` });
  };
  return {
    handle,
    close() {
      agents.close();
    },
  };
}
