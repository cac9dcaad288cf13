// An org's billing history around one instant, for placing an event that arrives late
// (src/billing/late.ts): the events from that instant on, and the last ones before it with the
// org's state right after each (migration 135).
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { stateFromJson, type OrgBilling, type StoredEvent } from './billing.ts';

export interface HistoryEvent extends StoredEvent {
  /** The org's state right after the event; null where none was recorded yet. */
  stateAfter: OrgBilling | null;
}

const columns = ['id', 'type', 'created_at', 'received_at', 'seq', 'raw_body', 'correlation_id', 'customer_id', 'state_after'] as const;

/** An org's history: applied or ignored events of the handled types, placed by created (else received). */
function history(db: Db, orgId: string, types: readonly string[], except: string[]) {
  let query = db
    .selectFrom('webhook_events')
    .select(columns)
    .where('org_id', '=', orgId)
    .where('status', 'in', ['applied', 'ignored'])
    .where('type', 'in', [...types]);
  if (except.length) query = query.where('id', 'not in', except);
  return query;
}

const at = sql<Date>`coalesce(created_at, received_at)`;

const toEvent = ({ state_after, ...row }: Record<string, any>): HistoryEvent =>
  ({ ...row, stateAfter: stateFromJson(state_after as Record<string, unknown> | null) }) as HistoryEvent;

export const billingHistoryRepo = {
  /**
   * The events of an org's history at or after `from` (by created, else received), and those at
   * the last instant before it: the caller orders them exactly (type and arrival break ties).
   */
  async around(db: Db, orgId: string, types: readonly string[], except: string[], from: Date): Promise<{ before: HistoryEvent[]; after: HistoryEvent[] }> {
    const after = await history(db, orgId, types, except).where(at, '>=', from).execute();
    const last = await history(db, orgId, types, except).where(at, '<', from).orderBy(at, 'desc').limit(1).execute();
    const lastAt = last[0] ? (last[0].created_at ?? last[0].received_at) : undefined;
    const before = lastAt ? await history(db, orgId, types, except).where(at, '=', lastAt).execute() : [];
    return { before: before.map(toEvent), after: after.map(toEvent) };
  },

  /** Every event of an org's history (its first late event, while states are missing). */
  async all(db: Db, orgId: string, types: readonly string[], except: string[]): Promise<HistoryEvent[]> {
    return (await history(db, orgId, types, except).execute()).map(toEvent);
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
