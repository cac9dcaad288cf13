// Takes payment-provider events in: dedup, then the applier (./apply.ts), the audit entries and
// the outcomes, all in one transaction. A failure is kept (with its error and the raw body) for
// replay and never loses the event.
//
// Deliveries that arrive while a transaction is being written are applied together in the next
// one (group commit, src/store/batcher.ts): a few statements per batch instead of several per
// event, which is what the embedded database, one statement at a time, needs under a burst. The
// result is the same as applying them one by one in arrival order. If a batch fails as a whole
// (say a unique violation), its events are applied one at a time, so one bad event cannot fail others.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { billingRepo, type EventOutcome, type EventRecord, type EventStatus } from '../store/repositories/billing.ts';
import { recordAuditEntries } from '../audit/record.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { Batcher, type Settled } from '../store/batcher.ts';
import { applyEvents, type Arrival } from './apply.ts';
import { parseEvent, storable, type ProviderEvent } from './event.ts';
import { HANDLED_EVENTS } from './state-machine.ts';
import { describeFailure, EventFailure, type EventFailureCode } from './failure.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { every } from '../lib/every.ts';
import { notFound } from '../kernel/errors.ts';
import { toWebhookEvent, toWebhookEventDetail, type WebhookEvent, type WebhookEventDetail } from './resource.ts';

export type IntakeResult = 'processed' | 'pending' | 'duplicate' | 'failed';
export type ReplayResult = { id: string; result: EventStatus | 'not-failed'; detail: string; errorCode?: EventFailureCode };
export type ReplayBy = { staffId: string; correlationId: string };

interface Delivery {
  event: ProviderEvent;
  record: EventRecord;
}

/** The most events one transaction applies. */
const MAX_BATCH = 200;

/** Event ids past the dedup window are no longer needed; an hour's worth of them is small. */
const PURGE_EVERY_MS = 3_600_000;

export function createBillingService(deps: { db: Db; logger: Logger; clock: () => Date; gracePeriodS: number; dedupWindowS: number; invalidate: Invalidate }) {
  const { db } = deps;
  const config = { gracePeriodS: deps.gracePeriodS };

  /** Applies the arrivals inside `tx` and writes orgs, audit entries and the outcomes of released events. */
  async function applyAndSave(tx: Db, arrivals: Arrival[]) {
    const applied = await applyEvents(tx, arrivals, config);
    await billingRepo.saveOrgs(tx, applied.saves);
    await recordAuditEntries(tx, applied.audit);
    await billingRepo.setOutcomes(tx, applied.released);
    return applied;
  }

  function afterCommit(outcomes: { id: string; outcome: EventOutcome; correlationId: string | null }[], changedOrgs: string[]) {
    for (const { id, outcome, correlationId } of outcomes) {
      if (outcome.status === 'failed') deps.logger.error({ eventId: id, correlationId, error: outcome.error }, 'payment event failed; kept for replay');
    }
    for (const orgId of new Set(changedOrgs)) deps.invalidate.orgChanged(orgId);
  }

  /** One transaction for a batch of deliveries: claim the ids, apply the claimed, record outcomes. */
  async function intakeBatch(deliveries: Delivery[]): Promise<IntakeResult[]> {
    // The same id twice in one batch: the later deliveries are duplicates of the first.
    const first = new Map<string, Delivery>();
    for (const d of deliveries) if (!first.has(d.event.id)) first.set(d.event.id, d);
    const unique = [...first.values()];
    const now = deps.clock();
    const { outcomes, changedOrgs } = await db.transaction().execute(async (tx) => {
      const claimed = await billingRepo.claimEvents(
        tx,
        unique.map((d) => d.record),
        deps.dedupWindowS,
        now,
      );
      const mine = unique.filter((d) => claimed.has(d.event.id));
      if (mine.length === 0) return { outcomes: new Map<string, EventOutcome>(), changedOrgs: [] };
      const arrivals = mine.map((d) => ({
        id: d.event.id,
        event: d.event,
        seq: claimed.get(d.event.id) as bigint,
        receivedAt: now,
        correlationId: d.record.correlationId,
      }));
      const applied = await applyAndSave(tx, arrivals);
      const outcomes = new Map(mine.map((d, i) => [d.event.id, applied.outcomes[i] as EventOutcome]));
      await billingRepo.setOutcomes(
        tx,
        [...outcomes].map(([id, o]) => ({ id, ...o })),
      );
      return { outcomes, changedOrgs: applied.saves.filter((s) => s.versionStep > 0).map((s) => s.orgId) };
    });
    afterCommit(
      [...outcomes].map(([id, outcome]) => ({ id, outcome, correlationId: first.get(id)?.record.correlationId ?? null })),
      changedOrgs,
    );
    return deliveries.map((d) => {
      const o = first.get(d.event.id) === d ? outcomes.get(d.event.id) : undefined;
      return !o ? 'duplicate' : o.status === 'failed' ? 'failed' : o.status === 'pending' ? 'pending' : 'processed';
    });
  }

  /** One delivery alone; if even that transaction fails, the event is kept as failed for replay. */
  async function intakeOne(d: Delivery): Promise<IntakeResult> {
    try {
      return (await intakeBatch([d]))[0] as IntakeResult;
    } catch (err) {
      deps.logger.error({ err, correlationId: d.record.correlationId, eventId: d.event.id, eventType: d.event.type }, 'payment event failed; kept for replay');
      // If even this fails, the error reaches the client as a 500 and the provider retries. The
      // event keeps the sentence for staff; the driver's own text is in the log line above.
      const failure = describeFailure(err);
      await billingRepo.recordFailure(db, { ...d.record, error: failure.message, errorCode: failure.code });
      return 'failed';
    }
  }

  const intake = new Batcher<Delivery, IntakeResult>(async (deliveries) => {
    if (deliveries.length > 1) {
      try {
        return (await intakeBatch(deliveries)).map((value) => ({ ok: true, value }));
      } catch (err) {
        deps.logger.warn({ err, events: deliveries.length }, 'a batch of payment events failed; applying them one at a time');
      }
    }
    const results: Settled<IntakeResult>[] = [];
    for (const d of deliveries) {
      results.push(
        await intakeOne(d).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      );
    }
    return results;
  }, MAX_BATCH);

  /** A staff member's replay is audited with them as actor, in the transaction that records its result. */
  const replayAudit = (by: ReplayBy | undefined, eventId: string, orgId: string | null) =>
    by ? [{ orgId, actor: { type: 'staff' as const, id: by.staffId }, action: 'webhookEvent.replay', targetId: eventId, correlationId: by.correlationId }] : [];

  /** Applies one stored failed or pending event again, by the same rule as a delivery. */
  async function replayOne(row: NonNullable<Awaited<ReturnType<typeof billingRepo.find>>>, by?: ReplayBy): Promise<ReplayResult> {
    if (row.status !== 'failed' && row.status !== 'pending') return { id: row.id, result: 'not-failed', detail: `status is ${row.status}` };
    const was = row.status;
    try {
      const parsed = parseEvent(row.raw_body);
      if (!parsed.ok) throw new EventFailure('EVENT_UNREADABLE', storable(parsed.message));
      const arrival: Arrival = {
        id: row.id,
        event: { ...parsed.event, id: row.id },
        seq: BigInt(row.seq),
        receivedAt: row.received_at,
        correlationId: row.correlation_id,
      };
      const { outcome, changedOrgs } = await db.transaction().execute(async (tx) => {
        const applied = await applyAndSave(tx, [arrival]);
        const outcome = applied.outcomes[0] as EventOutcome;
        if (outcome.status === 'failed')
          throw new EventFailure((outcome.errorCode as EventFailureCode | undefined) ?? 'INTERNAL', outcome.error ?? 'not applied');
        // Only one replay wins: the row must still have the status this one read.
        if (!(await billingRepo.setOutcomeIf(tx, row.id, was, outcome))) {
          throw new EventFailure('REPLAYED_CONCURRENTLY', 'Another replay of this event ran at the same time; its result stands.');
        }
        await recordAuditEntries(tx, replayAudit(by, row.id, outcome.orgId ?? row.org_id));
        return { outcome, changedOrgs: applied.saves.filter((s) => s.versionStep > 0).map((s) => s.orgId) };
      });
      afterCommit([], changedOrgs);
      return { id: row.id, result: outcome.status, detail: outcome.outcome ?? '' };
    } catch (err) {
      const failure = describeFailure(err);
      if (!(err instanceof EventFailure)) deps.logger.error({ err, eventId: row.id, correlationId: by?.correlationId }, 'payment event replay failed');
      await db.transaction().execute(async (tx) => {
        await billingRepo.noteFailedAgain(tx, row.id, failure);
        await recordAuditEntries(tx, replayAudit(by, row.id, row.org_id));
      });
      return { id: row.id, result: 'failed', detail: failure.message, errorCode: failure.code };
    }
  }

  /**
   * Forgets event ids older than the dedup window, and applies pending events whose customer an
   * org has meanwhile been linked to by a transaction that ran beside theirs.
   */
  async function purge(): Promise<number> {
    for (const row of await billingRepo.pendingLinked(db, 1000)) await replayOne(row);
    return billingRepo.purge(db, deps.dedupWindowS, HANDLED_EVENTS, deps.clock());
  }

  return {
    /** Takes a verified delivery: the event read from `rawBody`, which is kept as it is. */
    intake(event: ProviderEvent, rawBody: Uint8Array, correlationId: string): Promise<IntakeResult> {
      const createdAt = event.created ? new Date(event.created * 1000) : null;
      return intake.submit({ event, record: { id: event.id, type: event.type, createdAt, rawBody, correlationId } });
    },

    /**
     * Applies stored failed events again (one, or all of them, oldest first); one named pending
     * event too. `by`: the staff member who asked, for the audit trail (the CLI passes none).
     */
    async replay(eventId?: string, by?: ReplayBy): Promise<ReplayResult[]> {
      const rows = eventId ? [await billingRepo.find(db, eventId)].filter((r) => r !== undefined) : await billingRepo.failed(db, 1000);
      const results: ReplayResult[] = [];
      for (const row of rows) results.push(await replayOne(row, by));
      return results;
    },

    /** One stored event with the body exactly as it was signed. */
    async event(eventId: string): Promise<WebhookEventDetail> {
      const row = await billingRepo.find(db, eventId);
      if (!row) throw notFound('Event');
      return toWebhookEventDetail(row);
    },

    /** The staff list of received events, newest first. */
    async listEvents(
      filter: { status?: EventStatus | undefined; orgId?: string | undefined; type?: string | undefined },
      page: PageRequest,
    ): Promise<Page<WebhookEvent>> {
      const rows = await billingRepo.list(db, filter, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toWebhookEvent);
    },

    purge,

    /** Runs `purge` every hour; returns what stops it. */
    startPurging: (): (() => Promise<void>) => every(PURGE_EVERY_MS, purge, { logger: deps.logger, message: 'purging old payment events failed' }),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
