import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { WebhookEventRow } from '../schema.ts';

/** The billing columns of an org, as the payment provider's events set them. */
export interface OrgBilling {
  subscriptionStatus: string;
  plan: string;
  priceVersion: string | null;
  seats: number;
  overSeatLimit: boolean;
  currentPeriodEnd: Date | null;
  gracePeriodEndsAt: Date | null;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
}

/** The newest event applied to an org: its `created` and its rank in HANDLED_EVENTS (billing/state-machine.ts). */
export interface FoldPosition {
  at: Date | null;
  rank: number | null;
}

export interface LockedOrg {
  orgId: string;
  billing: OrgBilling;
  position: FoldPosition;
  /** The billing state before the first event applied, or null while none has been. */
  base: OrgBilling | null;
  /** A staff override of the seats (the seat cap uses it; events never change it). */
  seatsOverride: number | null;
}

export interface EventRecord {
  id: string;
  type: string;
  createdAt: Date | null;
  rawBody: Uint8Array;
  correlationId: string | null;
}

export type EventStatus = 'applied' | 'ignored' | 'failed' | 'pending';

/** What became of an event: applied, ignored (it changes nothing), failed (kept for replay), or pending (no org yet). */
export interface EventOutcome {
  status: EventStatus;
  outcome: string | null;
  orgId: string | null;
  /** The customer a pending event waits for. */
  customerId?: string | null;
  /** A failure's sentence for staff and its stable code (src/billing/failure.ts). */
  error?: string;
  errorCode?: string;
  /** An event applied to an org: the org's state right after it, in created order (migration 136). */
  stateAfter?: OrgBilling | undefined;
}

/** A stored event, as a fold or a replay reads it again. */
export type StoredEvent = Pick<WebhookEventRow, 'id' | 'type' | 'created_at' | 'received_at' | 'seq' | 'raw_body' | 'correlation_id' | 'customer_id'>;

export type EventListRow = Omit<WebhookEventRow, 'raw_body' | 'state_after'>;

const dateOrNull = (v: unknown) => (typeof v === 'string' ? new Date(v) : null);

/** A billing state as stored in jsonb (an org's base, an event's state after it). */
export function stateFromJson(json: Record<string, any> | null): OrgBilling | null {
  if (!json) return null;
  return {
    subscriptionStatus: json.subscriptionStatus,
    plan: json.plan,
    priceVersion: json.priceVersion ?? null,
    seats: json.seats,
    overSeatLimit: json.overSeatLimit,
    currentPeriodEnd: dateOrNull(json.currentPeriodEnd),
    gracePeriodEndsAt: dateOrNull(json.gracePeriodEndsAt),
    providerCustomerId: json.providerCustomerId ?? null,
    providerSubscriptionId: json.providerSubscriptionId ?? null,
  };
}

const storedEventColumns = ['id', 'type', 'created_at', 'received_at', 'seq', 'raw_body', 'correlation_id', 'customer_id'] as const;

/** An event's outcome as its row's columns (the state after it aside: each writer encodes it its own way). */
const outcomeColumns = (o: EventOutcome) => ({
  status: o.status,
  outcome: o.outcome,
  org_id: o.orgId,
  customer_id: o.customerId ?? null,
  error: o.error ?? null,
  error_code: o.error ? (o.errorCode ?? null) : null,
});

export const billingRepo = {
  /**
   * The billing state of the orgs some events name (by id or provider customer id), locked for the
   * rest of the transaction so events of one org apply in turn. Locked in id order, so two
   * transactions locking overlapping orgs cannot deadlock.
   */
  async lockOrgs(db: Db, by: { orgIds: string[]; customerIds: string[] }): Promise<LockedOrg[]> {
    const orgIds = [...new Set(by.orgIds.filter(isUuid).map((id) => id.toLowerCase()))];
    const customerIds = [...new Set(by.customerIds)];
    if (orgIds.length === 0 && customerIds.length === 0) return [];
    const rows = await db
      .selectFrom('orgs')
      .selectAll()
      .where((eb) =>
        eb.or([...(orgIds.length ? [eb('id', 'in', orgIds)] : []), ...(customerIds.length ? [eb('provider_customer_id', 'in', customerIds)] : [])]),
      )
      .orderBy('id')
      .forUpdate()
      .execute();
    return rows.map((org) => ({
      orgId: org.id,
      billing: {
        subscriptionStatus: org.subscription_status,
        plan: org.plan,
        priceVersion: org.price_version,
        seats: org.seats,
        overSeatLimit: org.over_seat_limit,
        currentPeriodEnd: org.current_period_end,
        gracePeriodEndsAt: org.grace_period_ends_at,
        providerCustomerId: org.provider_customer_id,
        providerSubscriptionId: org.provider_subscription_id,
      },
      position: { at: org.billing_event_at, rank: org.billing_event_rank },
      base: stateFromJson(org.billing_base),
      seatsOverride: org.seats_override,
    }));
  },

  /**
   * Live users per org (the seat cap): one row per org kept by the database on every write to
   * users (migration 042), not a count of the org's users, which a sync creating thousands of
   * users would make once per user.
   */
  async seatsUsed(db: Db, orgIds: string[]): Promise<Map<string, number>> {
    if (orgIds.length === 0) return new Map();
    const rows = await db.selectFrom('org_live_users').select(['org_id', 'live']).where('org_id', 'in', orgIds).execute();
    return new Map(rows.map((r) => [r.org_id, r.live]));
  },

  /**
   * Writes the new billing state of several orgs in one statement; `versionStep` is the number of
   * events that changed each (its version goes up by one per change, as if applied one at a time).
   * The base is written only where none is stored yet.
   */
  async saveOrgs(db: Db, saves: { orgId: string; billing: OrgBilling; position: FoldPosition; base: OrgBilling; versionStep: number }[]): Promise<void> {
    if (saves.length === 0) return;
    const rows = saves.map(({ orgId, billing: s, position, base, versionStep }) => ({
      id: orgId,
      subscription_status: s.subscriptionStatus,
      plan: s.plan,
      price_version: s.priceVersion,
      seats: s.seats,
      over_seat_limit: s.overSeatLimit,
      current_period_end: s.currentPeriodEnd,
      grace_period_ends_at: s.gracePeriodEndsAt,
      provider_customer_id: s.providerCustomerId,
      provider_subscription_id: s.providerSubscriptionId,
      billing_event_at: position.at,
      billing_event_rank: position.rank,
      billing_base: base,
      version_step: versionStep,
    }));
    await sql`
      UPDATE orgs AS o SET
        subscription_status = v.subscription_status, plan = v.plan, price_version = v.price_version,
        seats = v.seats, over_seat_limit = v.over_seat_limit, current_period_end = v.current_period_end,
        grace_period_ends_at = v.grace_period_ends_at, provider_customer_id = v.provider_customer_id,
        provider_subscription_id = v.provider_subscription_id, billing_event_at = v.billing_event_at,
        billing_event_rank = v.billing_event_rank, billing_base = coalesce(o.billing_base, v.billing_base),
        version = o.version + v.version_step, updated_at = CASE WHEN v.version_step > 0 THEN now() ELSE o.updated_at END
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
        id uuid, subscription_status text, plan text, price_version text, seats integer,
        over_seat_limit boolean, current_period_end timestamptz, grace_period_ends_at timestamptz,
        provider_customer_id text, provider_subscription_id text, billing_event_at timestamptz,
        billing_event_rank smallint, billing_base jsonb, version_step integer)
      WHERE o.id = v.id`.execute(db);
  },

  /**
   * Claims event ids for processing, atomically, and answers the ids claimed with their place in
   * arrival order: those new, or last seen longer ago than the dedup window. A concurrent delivery
   * of a claimed id waits on the unique key and then finds it taken. The ids must be distinct.
   * Inserted in id order, so two instances claiming overlapping batches wait for each other
   * instead of deadlocking. `now` is the service's clock (injected, so tests need not wait out the
   * window); instances' clocks differ by seconds, the window is days.
   */
  async claimEvents(db: Db, events: EventRecord[], windowS: number, now: Date): Promise<Map<string, bigint>> {
    if (events.length === 0) return new Map();
    const rows = await db
      .insertInto('webhook_events')
      .values(
        [...events]
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((e) => ({
            id: e.id,
            type: e.type,
            created_at: e.createdAt,
            status: 'applied' as const,
            raw_body: e.rawBody,
            received_at: now,
            correlation_id: e.correlationId,
          })),
      )
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            type: eb.ref('excluded.type'),
            created_at: eb.ref('excluded.created_at'),
            received_at: now,
            seq: sql`DEFAULT`,
            status: 'applied',
            error: null,
            error_code: null,
            outcome: null,
            org_id: null,
            customer_id: null,
            raw_body: eb.ref('excluded.raw_body'),
            correlation_id: eb.ref('excluded.correlation_id'),
            attempts: 1,
          }))
          .where('webhook_events.received_at', '<', new Date(now.getTime() - windowS * 1000)),
      )
      .returning(['id', 'seq'])
      .execute();
    return new Map(rows.map((r) => [r.id, BigInt(r.seq)]));
  },

  /** The outcome of each event, in one statement. The texts must be storable. */
  async setOutcomes(db: Db, outcomes: ({ id: string } & EventOutcome)[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = outcomes.map((o) => ({ id: o.id, ...outcomeColumns(o), state_after: o.stateAfter ?? null }));
    await sql`
      UPDATE webhook_events AS w SET status = v.status, outcome = v.outcome, org_id = v.org_id,
        customer_id = v.customer_id, error = v.error, error_code = v.error_code, state_after = v.state_after
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id text, status text, outcome text, org_id uuid, customer_id text, error text, error_code text, state_after jsonb)
      WHERE w.id = v.id`.execute(db);
  },

  /** The outcome of a replay, written only while the event still has the status the replay read. */
  async setOutcomeIf(db: Db, id: string, was: EventStatus, o: EventOutcome): Promise<boolean> {
    const result = await db
      .updateTable('webhook_events')
      .set({
        ...outcomeColumns(o),
        state_after: o.stateAfter ? sql<Record<string, unknown>>`${JSON.stringify(o.stateAfter)}::jsonb` : null,
      })
      .where('id', '=', id)
      .where('status', '=', was)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Keeps a failed event (outside the failed transaction) so it can be replayed. */
  async recordFailure(db: Db, e: EventRecord & { error: string; errorCode: string }): Promise<void> {
    await db
      .insertInto('webhook_events')
      .values({
        id: e.id,
        type: e.type,
        created_at: e.createdAt,
        status: 'failed',
        error: e.error,
        error_code: e.errorCode,
        raw_body: e.rawBody,
        correlation_id: e.correlationId,
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ error: e.error, error_code: e.errorCode, attempts: sql`webhook_events.attempts + 1` })
          .where('webhook_events.status', '=', 'failed'),
      )
      .execute();
  },

  /** A replay that failed again: the new error, one more attempt (only while still failed). */
  async noteFailedAgain(db: Db, id: string, failure: { code: string; message: string }): Promise<void> {
    await db
      .updateTable('webhook_events')
      .set({ error: failure.message, error_code: failure.code, attempts: sql`attempts + 1` })
      .where('id', '=', id)
      // A pending event replayed by the sweep counts its tries and keeps its error too.
      .where('status', 'in', ['failed', 'pending'])
      .execute();
  },

  async find(db: Db, id: string): Promise<WebhookEventRow | undefined> {
    return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** Events waiting for one of these customers to be linked to an org, but those named in `except`. */
  async pendingFor(db: Db, customerIds: string[], except: string[]): Promise<StoredEvent[]> {
    if (customerIds.length === 0) return [];
    let query = db.selectFrom('webhook_events').select(storedEventColumns).where('status', '=', 'pending').where('customer_id', 'in', customerIds);
    if (except.length) query = query.where('id', 'not in', except);
    return query.orderBy('seq').execute();
  },

  /** Pending events whose customer is linked to an org by now, oldest first. */
  async pendingLinked(db: Db, limit: number): Promise<WebhookEventRow[]> {
    return db
      .selectFrom('webhook_events')
      .selectAll()
      .where('status', '=', 'pending')
      .where((eb) => eb.exists(eb.selectFrom('orgs').select('orgs.id').whereRef('orgs.provider_customer_id', '=', 'webhook_events.customer_id')))
      .orderBy('seq')
      .limit(limit)
      .execute();
  },

  /** Newest first, in pages: `before` is the seq of the last row of the previous page. */
  async list(
    db: Db,
    filter: { status?: EventStatus | undefined; orgId?: string | undefined; type?: string | undefined },
    before: string | undefined,
    limit: number,
  ): Promise<EventListRow[]> {
    let query = db
      .selectFrom('webhook_events')
      .select([
        'id',
        'type',
        'created_at',
        'received_at',
        'org_id',
        'status',
        'outcome',
        'error',
        'error_code',
        'customer_id',
        'correlation_id',
        'attempts',
        'seq',
      ]);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.orgId) query = query.where('org_id', '=', filter.orgId);
    if (filter.type) query = query.where('type', '=', filter.type);
    if (before !== undefined) query = query.where('seq', '<', before);
    return query
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute();
  },

  /** Failed events, oldest first. */
  async failed(db: Db, limit: number): Promise<WebhookEventRow[]> {
    return db.selectFrom('webhook_events').selectAll().where('status', '=', 'failed').orderBy('seq').limit(limit).execute();
  },

  /**
   * Forgets ids older than the dedup window. Failed and pending events stay until applied, and an
   * org's history stays: an event that arrives late is applied by re-applying it with them.
   */
  async purge(db: Db, windowS: number, historyTypes: readonly string[], now: Date): Promise<number> {
    const result = await db
      .deleteFrom('webhook_events')
      .where('received_at', '<', new Date(now.getTime() - windowS * 1000))
      .where('status', 'not in', ['failed', 'pending'])
      .where((eb) => eb.or([eb('org_id', 'is', null), eb('type', 'not in', [...historyTypes])]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
