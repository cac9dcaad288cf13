// The SQL of outbound webhooks (src/outbound-webhooks/): endpoints, the event outbox, deliveries.
// Every function that answers an org's data takes the org id and filters by it; the delivery worker's
// functions name an endpoint or delivery the queue handed it.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';
import type { DeliveryAttempt, DeliveryState, OutboundDeliveryRow, OutboundEndpointRow } from '../schema.ts';

export interface NewOutboundEvent {
  id: string;
  orgId: string;
  type: string;
  body: string;
}

export interface EndpointPatch {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  disabled?: boolean | undefined;
}

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

const live = (orgId: string) => (db: Db) => db.selectFrom('outbound_endpoints').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);

export const outboundRepo = {
  async insertEndpoint(
    db: Db,
    e: { id: string; orgId: string; url: string; description: string | null; events: string[]; sealedSecrets: string },
  ): Promise<OutboundEndpointRow> {
    return db
      .insertInto('outbound_endpoints')
      .values({ id: e.id, org_id: e.orgId, url: e.url, description: e.description, events: e.events, sealed_secrets: e.sealedSecrets })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async listEndpoints(db: Db, orgId: string, after: string | undefined, limit: number): Promise<OutboundEndpointRow[]> {
    let q = live(orgId)(db);
    if (after !== undefined) q = q.where('seq', '>', after);
    return q
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /** `lock`: the row is locked until the transaction ends (a read, change and write back). */
  async findEndpoint(db: Db, orgId: string, endpointId: string, options: { lock?: boolean } = {}): Promise<OutboundEndpointRow | undefined> {
    const q = live(orgId)(db).where('id', '=', endpointId);
    return (options.lock ? q.forUpdate() : q).executeTakeFirst();
  },

  /** The endpoint the delivery worker was handed (deleted ones too: their deliveries stop). */
  async endpointById(db: Db, endpointId: string): Promise<OutboundEndpointRow | undefined> {
    return db.selectFrom('outbound_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();
  },

  async updateEndpoint(db: Db, orgId: string, endpointId: string, check: VersionCheck, patch: EndpointPatch): Promise<OutboundEndpointRow | undefined> {
    return db
      .updateTable('outbound_endpoints')
      .set({
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events !== undefined ? { events: patch.events } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        // Enabling again forgets the failures that disabled it.
        ...(patch.disabled !== undefined
          ? patch.disabled
            ? { disabled: true, disabled_reason: 'Disabled by an admin.' }
            : { disabled: false, disabled_reason: null, failing_since: null }
          : {}),
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('org_id', '=', orgId)
      .where('id', '=', endpointId)
      .where('deleted_at', 'is', null)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },

  async softDelete(db: Db, orgId: string, endpointId: string): Promise<boolean> {
    const r = await db
      .updateTable('outbound_endpoints')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', endpointId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  async setSecrets(db: Db, orgId: string, endpointId: string, sealedSecrets: string, previousUntil: Date): Promise<OutboundEndpointRow | undefined> {
    return db
      .updateTable('outbound_endpoints')
      .set({ sealed_secrets: sealedSecrets, previous_until: previousUntil, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', endpointId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /** The event types the org's live, enabled endpoints subscribe to. */
  async subscribedTypes(db: Db, orgId: string): Promise<Set<string>> {
    const rows = await sql<{ type: string }>`
      select distinct unnest(events) as type from outbound_endpoints
      where org_id = ${orgId} and deleted_at is null and not disabled`.execute(db);
    return new Set(rows.rows.map((r) => r.type));
  },

  /**
   * The outbox: writes the events some live, enabled endpoint of their org subscribes to, and one
   * delivery per such endpoint, due at once (a null `next_attempt_at`); answers the endpoints that got deliveries. One
   * statement, whatever the number of events (a batch of renders).
   */
  async emit(db: Db, events: NewOutboundEvent[]): Promise<{ endpointId: string; orgId: string }[]> {
    if (events.length === 0) return [];
    const input = JSON.stringify(events.map((e) => ({ id: e.id, org_id: e.orgId, type: e.type, body: e.body })));
    const r = await sql<{ endpoint_id: string; org_id: string }>`
      with input as (
        select * from jsonb_to_recordset(${input}::jsonb) as x(id text, org_id uuid, type text, body text)
      ), targets as (
        select input.id as event_id, input.org_id, input.type, e.id as endpoint_id
        from input join outbound_endpoints e
          on e.org_id = input.org_id and input.type = any(e.events) and e.deleted_at is null and not e.disabled
      ), ev as (
        insert into outbound_events (id, org_id, type, body)
        select id, org_id, type, body from input where id in (select event_id from targets)
        returning id
      ), dl as (
        insert into outbound_deliveries (id, org_id, endpoint_id, event_id, type)
        select gen_random_uuid(), t.org_id, t.endpoint_id, ev.id, t.type
        from targets t join ev on ev.id = t.event_id
        returning endpoint_id, org_id
      )
      select distinct endpoint_id, org_id from dl`.execute(db);
    return r.rows.map((row) => ({ endpointId: row.endpoint_id, orgId: row.org_id }));
  },

  /** An event for one endpoint whatever it subscribes to (the "send test event" action). */
  async emitTo(db: Db, event: NewOutboundEvent, endpointId: string): Promise<OutboundDeliveryRow> {
    await db.insertInto('outbound_events').values({ id: event.id, org_id: event.orgId, type: event.type, body: event.body }).execute();
    return db
      .insertInto('outbound_deliveries')
      .values({ id: randomUUID(), org_id: event.orgId, endpoint_id: endpointId, event_id: event.id, type: event.type })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

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

  /** After a success: not failing any more. Written at most once a minute while all is well (a busy endpoint succeeds thousands of times a minute). */
  async markSuccess(db: Db, endpointId: string, at: Date): Promise<void> {
    await db
      .updateTable('outbound_endpoints')
      .set({ failing_since: null, last_success_at: at })
      .where('id', '=', endpointId)
      .where((eb) =>
        eb.or([eb('failing_since', 'is not', null), eb('last_success_at', 'is', null), eb('last_success_at', '<', new Date(at.getTime() - 60_000))]),
      )
      .execute();
  },

  /** Since when the endpoint has been failing, this attempt included. */
  async markFailure(db: Db, endpointId: string, at: Date): Promise<Date> {
    const row = await db
      .updateTable('outbound_endpoints')
      .set({ failing_since: sql`coalesce(failing_since, ${at.toISOString()}::timestamptz)` })
      .where('id', '=', endpointId)
      .returning('failing_since')
      .executeTakeFirstOrThrow();
    return row.failing_since ?? at;
  },

  /** Disables an enabled endpoint; false when it was disabled (or deleted) already. */
  async disable(db: Db, endpointId: string, reason: string): Promise<OutboundEndpointRow | undefined> {
    return db
      .updateTable('outbound_endpoints')
      .set({ disabled: true, disabled_reason: reason, version: sql`version + 1`, updated_at: sql`now()` })
      .where('id', '=', endpointId)
      .where('disabled', '=', false)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /** An endpoint's deliveries, newest first; `before` is the seq of the previous page's last. */
  async listDeliveries(db: Db, orgId: string, endpointId: string, before: string | undefined, limit: number): Promise<OutboundDeliveryRow[]> {
    let q = db.selectFrom('outbound_deliveries').selectAll().where('org_id', '=', orgId).where('endpoint_id', '=', endpointId);
    if (before !== undefined) q = q.where('seq', '<', before);
    return q
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute();
  },

  async findDelivery(db: Db, orgId: string, endpointId: string, deliveryId: string): Promise<OutboundDeliveryRow | undefined> {
    return db
      .selectFrom('outbound_deliveries')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
  },

  /** Makes a delivery due again at once, unless it is in flight (undefined then). */
  async requeue(db: Db, orgId: string, endpointId: string, deliveryId: string): Promise<OutboundDeliveryRow | undefined> {
    return db
      .updateTable('outbound_deliveries')
      .set({ state: 'pending', next_attempt_at: null })
      .where('org_id', '=', orgId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', deliveryId)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', sql<Date>`now()`)]))
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * Forgets finished deliveries created before `before` (in slices, so no statement runs long),
   * and the events no delivery names any more. Answers how many deliveries went.
   */
  async purgeFinished(db: Db, before: Date, slice = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await sql`
        delete from outbound_deliveries where id in (
          select id from outbound_deliveries
          where state <> 'pending' and created_at < ${before.toISOString()}::timestamptz limit ${slice})`.execute(db);
      const n = Number(r.numAffectedRows ?? 0);
      total += n;
      if (n < slice) break;
    }
    await sql`
      delete from outbound_events e
      where e.created_at < ${before.toISOString()}::timestamptz
        and not exists (select 1 from outbound_deliveries d where d.event_id = e.id)`.execute(db);
    return total;
  },

  /** The rows events are made from: a user or template as it is now (deleted ones too). */
  async userRow(db: Db, orgId: string, userId: string) {
    return db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst();
  },
  async templateRow(db: Db, orgId: string, templateId: string) {
    return db.selectFrom('templates').selectAll().where('org_id', '=', orgId).where('id', '=', templateId).executeTakeFirst();
  },
  async subscriptionStatus(db: Db, orgId: string): Promise<string | undefined> {
    return (await db.selectFrom('orgs').select('subscription_status').where('id', '=', orgId).executeTakeFirst())?.subscription_status;
  },
};
