// Applies payment-provider events: dedup, org lookup, the state machine, the audit entry, all in
// one transaction. A failure is kept (with its error) for replay and never loses the event.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { billingRepo } from '../store/repositories/billing.ts';
import { recordAudit } from '../audit/record.ts';
import { HANDLED_EVENTS, orgHints, transition, type ProviderEvent } from './state-machine.ts';

export type IntakeResult = 'processed' | 'duplicate' | 'failed';

type Outcome = { status: 'applied' | 'ignored'; outcome: string; orgId: string | null };

export class NoOrgError extends Error {}

export function createBillingService(deps: {
  db: Db;
  logger: Logger;
  clock: () => Date;
  gracePeriodS: number;
  dedupWindowS: number;
  onOrgChange: (orgId: string) => void;
}) {
  const { db } = deps;

  async function apply(tx: Db, event: ProviderEvent, correlationId: string | null): Promise<Outcome> {
    if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) {
      return { status: 'ignored', outcome: `event type ${event.type} changes nothing`, orgId: null };
    }
    const hints = orgHints(event.object);
    // Only a subscription update can recompute the seat cap (spec rule 4): only it needs the count.
    const opts = { countSeats: event.type === 'customer.subscription.updated' };
    const org =
      (hints.orgId ? await billingRepo.lockOrg(tx, { orgId: hints.orgId }, opts) : undefined) ??
      (hints.customerId ? await billingRepo.lockOrg(tx, { customerId: hints.customerId }, opts) : undefined);
    if (!org) {
      throw new NoOrgError(
        `no org for this event (metadata.orgId ${hints.orgId ?? 'absent'}, customer ${hints.customerId ?? 'absent'}); replay it once the org is linked`,
      );
    }
    const t = transition(org, event, { now: deps.clock(), gracePeriodS: deps.gracePeriodS });
    if (t.outcome === 'ignored') return { status: 'ignored', outcome: t.reason, orgId: org.orgId };
    await billingRepo.saveOrg(tx, org.orgId, t.state);
    await recordAudit(
      tx,
      { orgId: org.orgId, correlationId, actor: { type: 'paymentProvider', id: event.id } },
      { action: `billing.${event.type}`, targetId: org.orgId, changes: t.changed.map(String).sort() },
    );
    return { status: 'applied', outcome: t.changed.length ? `changed ${t.changed.join(', ')}` : 'no change', orgId: org.orgId };
  }

  const createdOf = (event: ProviderEvent) => (event.created ? new Date(event.created * 1000) : null);

  return {
    async intake(event: ProviderEvent, payload: unknown, correlationId: string): Promise<IntakeResult> {
      const record = { id: event.id, type: event.type, createdAt: createdOf(event), payload, correlationId };
      try {
        const outcome = await db.transaction().execute(async (tx) => {
          if (!(await billingRepo.claimEvent(tx, record, deps.dedupWindowS))) return undefined;
          const result = await apply(tx, event, correlationId);
          await billingRepo.setOutcome(tx, event.id, result);
          return result;
        });
        if (!outcome) return 'duplicate';
        if (outcome.orgId && outcome.status === 'applied') deps.onOrgChange(outcome.orgId);
        return 'processed';
      } catch (err) {
        deps.logger.error({ err, correlationId, eventId: event.id, eventType: event.type }, 'payment event failed; kept for replay');
        // If even this fails, the error reaches the client as a 500 and the provider retries.
        await billingRepo.recordFailure(db, { ...record, error: err instanceof Error ? err.message : String(err) });
        return 'failed';
      }
    },

    /** Applies stored failed events again (one, or all of them, oldest first). */
    async replay(eventId?: string): Promise<{ id: string; result: 'applied' | 'ignored' | 'failed' | 'not-failed'; detail: string }[]> {
      const rows = eventId
        ? [await billingRepo.find(db, eventId)].filter((r) => r !== undefined)
        : (await billingRepo.list(db, { status: 'failed' }, 1000)).reverse();
      const results = [];
      for (const row of rows) {
        if (row.status !== 'failed') {
          results.push({ id: row.id, result: 'not-failed' as const, detail: `status is ${row.status}` });
          continue;
        }
        const payload = row.payload as { id: string; type: string; created?: number; data: { object: Record<string, unknown> } };
        const event: ProviderEvent = { id: payload.id, type: payload.type, created: payload.created, object: payload.data.object };
        try {
          const outcome = await db.transaction().execute(async (tx) => {
            const result = await apply(tx, event, row.correlation_id);
            // Only one replay wins: the row must still be failed.
            if (!(await billingRepo.setOutcome(tx, row.id, result, true))) throw new Error('replayed concurrently');
            return result;
          });
          if (outcome.orgId) deps.onOrgChange(outcome.orgId);
          results.push({ id: row.id, result: outcome.status, detail: outcome.outcome });
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          await billingRepo.noteFailedAgain(db, row.id, message);
          results.push({ id: row.id, result: 'failed' as const, detail: message });
        }
      }
      return results;
    },

    purge: () => billingRepo.purge(db, deps.dedupWindowS),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
