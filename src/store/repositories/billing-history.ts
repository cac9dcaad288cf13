// An org's billing history around one instant, for placing an event that arrives late
// (src/billing/late.ts): the events from that instant on, and the last ones before it with the
// org's state right after each (migration 136).
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { stateFromJson, type OrgBilling, type StoredEvent } from './billing.ts';

export interface HistoryEvent extends StoredEvent {
  /** The org's state right after the event; null where none was recorded yet. */
  stateAfter: OrgBilling | null;
}

const columns = ['id', 'type', 'created_at', 'received_at', 'seq', 'raw_body', 'correlation_id', 'customer_id', 'state_after'] as const;

/**
 * An org's history: its applied or ignored events (only events of the handled types are given an
 * org), by the partial index of migration 135. The caller keeps those of the types it handles.
 */
function history(db: Db, orgId: string, except: string[]) {
  let query = db.selectFrom('webhook_events').select(columns).where('org_id', '=', orgId).where('status', 'in', ['applied', 'ignored']);
  if (except.length) query = query.where('id', 'not in', except);
  return query;
}

const at = sql<Date>`coalesce(created_at, received_at)`;

const toEvent = ({ state_after, ...row }: StoredEvent & { state_after: Record<string, unknown> | null }): HistoryEvent => ({
  ...row,
  stateAfter: stateFromJson(state_after),
});

export const billingHistoryRepo = {
  /**
   * The events of an org's history at or after `from` (by created, else received), and those at
   * the last instant before it: the caller orders them exactly (type and arrival break ties).
   */
  async around(db: Db, orgId: string, except: string[], from: Date): Promise<{ before: HistoryEvent[]; after: HistoryEvent[] }> {
    const after = await history(db, orgId, except).where(at, '>=', from).execute();
    // The last instant before, found by the database (its timestamps are finer than a Date's).
    const lastAt = sql<Date>`(SELECT max(coalesce(created_at, received_at)) FROM webhook_events
      WHERE org_id = ${orgId} AND status IN ('applied', 'ignored') AND coalesce(created_at, received_at) < ${from})`;
    const before = await history(db, orgId, except).where(at, '=', lastAt).execute();
    return { before: before.map(toEvent), after: after.map(toEvent) };
  },

  /** Every event of an org's history (its first late event, while states are missing). */
  async all(db: Db, orgId: string, except: string[]): Promise<HistoryEvent[]> {
    return (await history(db, orgId, except).execute()).map(toEvent);
  },

  /** Records the org's state right after each of these events, in one statement. */
  async setStates(db: Db, states: { id: string; state: OrgBilling }[]): Promise<void> {
    if (states.length === 0) return;
    await sql`
      UPDATE webhook_events AS w SET state_after = v.state_after
      FROM jsonb_to_recordset(${JSON.stringify(states.map((s) => ({ id: s.id, state_after: s.state })))}::jsonb) AS v(id text, state_after jsonb)
      WHERE w.id = v.id`.execute(db);
  },
};
