// The SQL of the outbound webhooks' delivery worker (src/outbound-webhooks/delivery.ts): its claims
// of an endpoint's due deliveries, their leases, its attempts' outcomes, and what waits. Each
// function names an endpoint or a delivery the queue handed the worker (the org's own reads and
// writes: outbound-webhooks.ts).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DeliveryAttempt, DeliveryState, OutboundDeliveryRow } from '../schema.ts';

/** A claim: deliveries taken (under one lease token), none due (or the endpoint gone or disabled), or another worker sending. */
export type ClaimedDelivery = OutboundDeliveryRow & { body: string };
export type ClaimResult = { kind: 'claimed'; token: string; deliveries: ClaimedDelivery[] } | { kind: 'none' } | { kind: 'held' };

const ms = (n: number) => sql`(${Math.max(0, Math.round(n))}::double precision * interval '1 millisecond')`;

/** Leases up to `count` of an endpoint's due deliveries to `token`, oldest first, with their events' bodies. */
async function takeDue(tx: Db, endpointId: string, now: Date, count: number, leaseMs: number, token: string): Promise<ClaimedDelivery[]> {
  const taken = await sql<ClaimedDelivery>`
    with next as (
      select id from outbound_deliveries
      where endpoint_id = ${endpointId} and state = 'pending'
        and (next_attempt_at is null or next_attempt_at <= ${now.toISOString()}::timestamptz)
        and (lease_until is null or lease_until <= now())
        -- Never one the same claim took: its lease ran out while in flight (renewals stalled), and it is still being sent.
        and lease_token is distinct from ${token}
      order by next_attempt_at nulls first, seq limit ${count} for update skip locked
    ), taken as (
      update outbound_deliveries d set lease_until = now() + ${ms(leaseMs)}, lease_token = ${token}
      from next where d.id = next.id returning d.*
    )
    select taken.*, e.body from taken join outbound_events e on e.id = taken.event_id
    order by taken.next_attempt_at nulls first, taken.seq`.execute(tx);
  return taken.rows;
}
/** Locks an endpoint's row for a claim (so claims of it take turns across instances); false when it is gone or disabled. */
async function lockLiveEndpoint(tx: Db, endpointId: string): Promise<boolean> {
  const r = await sql`select id from outbound_endpoints where id = ${endpointId} and deleted_at is null and not disabled for update`.execute(tx);
  return r.rows.length > 0;
}

/** Whether `token` and whether any other token hold a live lease on one of an endpoint's deliveries. */
async function leaseHolders(tx: Db, endpointId: string, token: string): Promise<{ mine: boolean; others: boolean }> {
  const r = await sql<{ mine: boolean | null; others: boolean | null }>`
    select bool_or(lease_token = ${token}) as mine, bool_or(lease_token <> ${token}) as others from outbound_deliveries
    where endpoint_id = ${endpointId} and state = 'pending' and lease_until is not null and lease_until > now()`.execute(tx);
  return { mine: r.rows[0]?.mine === true, others: r.rows[0]?.others === true };
}

export const drainRepo = {
  /**
   * Takes up to `batch` of an endpoint's due deliveries, oldest first, for one worker to send (it
   * keeps at most 4 in flight), unless another worker holds some already: one sender per endpoint
   * across instances (the endpoint's row is locked while checking). The lease (database time) ends
   * `leaseMs` from now unless renewed; a worker that dies leaves its deliveries to be taken again.
   */
  async claimBatch(db: Db, endpointId: string, now: Date, batch: number, leaseMs: number): Promise<ClaimResult> {
    return db.transaction().execute(async (tx) => {
      if (!(await lockLiveEndpoint(tx, endpointId))) return { kind: 'none' };
      const token = randomUUID();
      if ((await leaseHolders(tx, endpointId, token)).others) return { kind: 'held' };
      const claimed = await takeDue(tx, endpointId, now, batch, leaseMs, token);
      return claimed.length > 0 ? { kind: 'claimed', token, deliveries: claimed } : { kind: 'none' };
    });
  },

  /**
   * Takes up to `count` more due deliveries under a worker's claim (`token`) while it is the
   * endpoint's sole live holder: its idle senders' share of deliveries that fell due after its claim.
   * The endpoint's row is locked as in claimBatch, so no other worker claims meanwhile. Sole: after
   * renewals stalled past the lease, another worker may have claimed the endpoint while this one's
   * renewal kept some of its rows alive.
   */
  async claimMore(db: Db, endpointId: string, token: string, now: Date, count: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return db.transaction().execute(async (tx) => {
      if (!(await lockLiveEndpoint(tx, endpointId))) return [];
      const holders = await leaseHolders(tx, endpointId, token);
      if (!holders.mine || holders.others) return [];
      return takeDue(tx, endpointId, now, count, leaseMs, token);
    });
  },

  /**
   * Whether any of an endpoint's deliveries is due and free for `token`'s claim to take (no lock: a
   * top-up's cheap first look). Two lookups, so that each walks the due index as a range.
   */
  async anyDueFree(db: Db, endpointId: string, token: string, now: Date): Promise<boolean> {
    const free = sql`state = 'pending' and (lease_until is null or lease_until <= now()) and lease_token is distinct from ${token}`;
    const r = await sql<{ due: boolean }>`
      select exists (select 1 from outbound_deliveries where endpoint_id = ${endpointId} and next_attempt_at is null and ${free})
        or exists (select 1 from outbound_deliveries where endpoint_id = ${endpointId} and next_attempt_at <= ${now.toISOString()}::timestamptz and ${free}) as due`.execute(
      db,
    );
    return r.rows[0]?.due === true;
  },

  /** Extends the lease of what a worker still holds of its claim. */
  async renewLease(db: Db, token: string, leaseMs: number): Promise<void> {
    await sql`update outbound_deliveries set lease_until = now() + ${ms(leaseMs)}
      where lease_token = ${token} and state = 'pending' and lease_until is not null`.execute(db);
  },

  /** Gives back deliveries a worker took but will not send (its drain gave its slot back): free at once. */
  async releaseLeases(db: Db, token: string, deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await db
      .updateTable('outbound_deliveries')
      .set({ lease_until: null, lease_token: null })
      .where('lease_token', '=', token)
      .where('state', '=', 'pending')
      .where('id', 'in', deliveryIds)
      .execute();
  },

  /**
   * Whether a drain job (`kind`) is due and not taken by any instance, for an endpoint none of whose
   * deliveries is in flight: a drain that waits for a slot (one for an endpoint being sent to now
   * waits for nothing: the worker sending takes the endpoint's new deliveries).
   */
  async anyDrainWaiting(db: Db, kind: string): Promise<boolean> {
    const r = await sql<{ waiting: boolean }>`
      select exists (
        select 1 from jobs j
        where j.kind = ${kind} and j.state = 'queued' and j.run_after <= now()
          and not exists (
            select 1 from outbound_deliveries d
            where d.endpoint_id = (j.payload->>'endpointId')::uuid and d.state = 'pending' and d.lease_until > now())
      ) as waiting`.execute(db);
    return r.rows[0]?.waiting === true;
  },

  /** Records an attempt of a delivery this worker holds (the lease token says so). */
  async recordAttempt(
    db: Db,
    deliveryId: string,
    token: string,
    attempt: DeliveryAttempt,
    next: { state: DeliveryState; nextAttemptAt: Date | null },
  ): Promise<boolean> {
    const r = await db
      .updateTable('outbound_deliveries')
      .set({
        attempts: sql`attempts || ${JSON.stringify([attempt])}::jsonb`,
        attempt_count: sql`attempt_count + 1`,
        state: next.state,
        next_attempt_at: next.nextAttemptAt,
        lease_until: null,
        lease_token: null,
      })
      .where('id', '=', deliveryId)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /**
   * What the endpoint's pending deliveries wait for: `none`; `now` (due, or in flight on some
   * instance: its lease may run out); or the earliest retry time.
   */
  async nextDue(db: Db, endpointId: string): Promise<{ kind: 'none' } | { kind: 'now' } | { kind: 'at'; at: Date }> {
    const row = await sql<{ pending: number; due_now: number; next: Date | null }>`
      select count(*)::int as pending,
             count(*) filter (where next_attempt_at is null or lease_until is not null)::int as due_now,
             min(next_attempt_at) as next
      from outbound_deliveries where endpoint_id = ${endpointId} and state = 'pending'`.execute(db);
    const r = row.rows[0];
    if (!r || r.pending === 0) return { kind: 'none' };
    if (r.due_now > 0 || !r.next) return { kind: 'now' };
    return { kind: 'at', at: new Date(r.next) };
  },
};
