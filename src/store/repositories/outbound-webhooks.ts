// The SQL of outbound webhooks (src/outbound-webhooks/): endpoints, the event outbox, deliveries.
// Every function that answers an org's data takes the org id and filters by it; the delivery worker's
// functions name an endpoint or delivery the queue handed it (its claims and leases: outbound-drain.ts).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';
import type { OutboundDeliveryRow, OutboundEndpointRow } from '../schema.ts';

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
