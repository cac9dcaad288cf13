// An org's billing history in the order billing applies it (src/billing/late.ts): the event right
// before a given place, with the org's state right after it (migration 136), and the events after
// that place, a page at a time, all read from the index of migration 141.
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { stateFromJson, type OrgBilling, type StoredEvent } from './billing.ts';

export interface HistoryEvent extends StoredEvent {
  /** The org's state right after the event; null where none was recorded yet. */
  stateAfter: OrgBilling | null;
}

/** A place in an org's history: created (else received), the rank of the type, arrival. */
export interface HistoryKey {
  at: Date;
  rank: number;
  seq: bigint;
}

const columns = ['id', 'type', 'created_at', 'received_at', 'seq', 'raw_body', 'correlation_id', 'customer_id', 'state_after'] as const;

/**
 * An org's history: its applied or ignored events (only events of the handled types are given an
 * org), by the partial index of migration 141. The caller keeps those of the types it handles.
 */
function history(db: Db, orgId: string, except: string[]) {
  let query = db.selectFrom('webhook_events').where('org_id', '=', orgId).where('status', 'in', ['applied', 'ignored']);
  if (except.length) query = query.where('id', 'not in', except);
  return query;
}

/** The index's key (migration 141), written as it is there so that the planner matches it. */
const at = sql<Date>`coalesce(created_at, received_at)`;
const rank = sql<number>`billing_event_rank(type)`;
const keyOfRow = sql`(coalesce(created_at, received_at), billing_event_rank(type), seq)`;
const place = (k: HistoryKey) => sql`(${k.at}::timestamptz, ${k.rank}::integer, ${k.seq.toString()}::bigint)`;

const toEvent = ({ state_after, ...row }: StoredEvent & { state_after: Record<string, unknown> | null }): HistoryEvent => ({
  ...row,
  stateAfter: stateFromJson(state_after),
});

export const billingHistoryRepo = {
  /** The event right before `key` in the org's history (its key and the state after it), if any. */
  async before(db: Db, orgId: string, except: string[], key: HistoryKey): Promise<(HistoryKey & { id: string; stateAfter: OrgBilling | null }) | undefined> {
    const row = await history(db, orgId, except)
      .select(['id', 'seq', 'state_after', at.as('at'), rank.as('rank')])
      .where(sql<boolean>`${keyOfRow} < ${place(key)}`)
      .orderBy(at, 'desc')
      .orderBy(rank, 'desc')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    return { id: row.id, at: new Date(row.at), rank: Number(row.rank), seq: BigInt(row.seq), stateAfter: stateFromJson(row.state_after) };
  },

  /**
   * The next `limit` events of the org's history after a place: after `key`, or after the stored
   * event `afterId` (a page's last: its key as the database has it, finer than a Date).
   */
  async after(db: Db, orgId: string, except: string[], from: { key: HistoryKey } | { afterId: string }, limit: number): Promise<HistoryEvent[]> {
    const bound =
      'key' in from
        ? place(from.key)
        : sql`(SELECT coalesce(created_at, received_at), billing_event_rank(type), seq FROM webhook_events WHERE id = ${from.afterId})`;
    const rows = await history(db, orgId, except)
      .select(columns)
      .where(sql<boolean>`${keyOfRow} > ${bound}`)
      .orderBy(at)
      .orderBy(rank)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toEvent);
  },

  /** Every event of an org's history (a late event of an org whose states are missing). */
  async all(db: Db, orgId: string, except: string[]): Promise<HistoryEvent[]> {
    return (await history(db, orgId, except).select(columns).execute()).map(toEvent);
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
