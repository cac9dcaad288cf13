import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isUuid } from '../../lib/uuid.ts';
import type { WebhookEventRow } from '../schema.ts';
import type { BillingState } from '../../billing/state-machine.ts';

/** An org's billing state as stored; the live-user count (`seatsUsed`) is `seatsUsed` below. */
export type LockedOrg = Omit<BillingState, 'seatsUsed'> & { orgId: string };

export interface EventRecord {
  id: string;
  type: string;
  createdAt: Date | null;
  payload: unknown;
  correlationId: string | null;
}

/** What became of an event: applied, ignored (it changes nothing), or failed (kept for replay). */
export interface EventOutcome {
  status: 'applied' | 'ignored' | 'failed';
  outcome: string | null;
  orgId: string | null;
  error?: string;
}

export const billingRepo = {
  /**
   * The billing state of the orgs some events name (by id or provider customer id), locked for the
   * rest of the transaction so events of one org apply in turn. Locked in id order, so two
   * transactions locking overlapping orgs cannot deadlock.
   */
  async lockOrgs(db: Db, by: { orgIds: string[]; customerIds: string[] }): Promise<LockedOrg[]> {
    const orgIds = [...new Set(by.orgIds.filter(isUuid))];
    const customerIds = [...new Set(by.customerIds)];
    if (orgIds.length === 0 && customerIds.length === 0) return [];
    const rows = await db
      .selectFrom('orgs')
      .selectAll()
      .where((eb) =>
        eb.or([
          ...(orgIds.length ? [eb('id', 'in', orgIds)] : []),
          ...(customerIds.length ? [eb('provider_customer_id', 'in', customerIds)] : []),
        ]),
      )
      .orderBy('id')
      .forUpdate()
      .execute();
    return rows.map((org) => ({
      orgId: org.id,
      subscriptionStatus: org.subscription_status,
      plan: org.plan,
      priceVersion: org.price_version,
      seats: org.seats,
      overSeatLimit: org.over_seat_limit,
      currentPeriodEnd: org.current_period_end,
      gracePeriodEndsAt: org.grace_period_ends_at,
      providerCustomerId: org.provider_customer_id,
      providerSubscriptionId: org.provider_subscription_id,
      billingEventAt: org.billing_event_at,
    }));
  },

  /** Live users per org (only the seat-cap recomputation needs them). */
  async seatsUsed(db: Db, orgIds: string[]): Promise<Map<string, number>> {
    if (orgIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('users')
      .select(['org_id', sql<number>`count(*)::int`.as('n')])
      .where('org_id', 'in', orgIds)
      .where('deleted_at', 'is', null)
      .groupBy('org_id')
      .execute();
    return new Map(rows.map((r) => [r.org_id, r.n]));
  },

  /**
   * Writes the new billing state of several orgs in one statement; `versionStep` is the number of
   * events applied to each (its version goes up by one per event, as if applied one at a time).
   */
  async saveOrgs(db: Db, saves: { orgId: string; state: BillingState; versionStep: number }[]): Promise<void> {
    if (saves.length === 0) return;
    const rows = saves.map(({ orgId, state: s, versionStep }) => ({
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
      billing_event_at: s.billingEventAt,
      version_step: versionStep,
    }));
    await sql`
      UPDATE orgs AS o SET
        subscription_status = v.subscription_status, plan = v.plan, price_version = v.price_version,
        seats = v.seats, over_seat_limit = v.over_seat_limit, current_period_end = v.current_period_end,
        grace_period_ends_at = v.grace_period_ends_at, provider_customer_id = v.provider_customer_id,
        provider_subscription_id = v.provider_subscription_id, billing_event_at = v.billing_event_at,
        version = o.version + v.version_step, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
        id uuid, subscription_status text, plan text, price_version text, seats integer,
        over_seat_limit boolean, current_period_end timestamptz, grace_period_ends_at timestamptz,
        provider_customer_id text, provider_subscription_id text, billing_event_at timestamptz,
        version_step integer)
      WHERE o.id = v.id`.execute(db);
  },

  /**
   * Claims event ids for processing, atomically, and answers the ids claimed: those new, or last
   * seen longer ago than the dedup window. A concurrent delivery of a claimed id waits on the
   * unique key and then finds it taken. The ids must be distinct. Inserted in id order, so two
   * instances claiming overlapping batches wait for each other instead of deadlocking. `now` is
   * the service's clock (injected, so tests need not wait out the window); instances' clocks
   * differ by seconds, the window is days.
   */
  async claimEvents(db: Db, events: EventRecord[], windowS: number, now: Date): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const rows = await db
      .insertInto('webhook_events')
      .values(
        [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((e) => ({
          id: e.id,
          type: e.type,
          created_at: e.createdAt,
          status: 'applied' as const,
          payload: JSON.stringify(e.payload),
          correlation_id: e.correlationId,
          received_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            type: eb.ref('excluded.type'),
            created_at: eb.ref('excluded.created_at'),
            received_at: now,
            status: 'applied',
            error: null,
            outcome: null,
            payload: eb.ref('excluded.payload'),
            correlation_id: eb.ref('excluded.correlation_id'),
            attempts: 1,
          }))
          .where('webhook_events.received_at', '<', new Date(now.getTime() - windowS * 1000)),
      )
      .returning('id')
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  /** The outcome of each claimed event, in one statement. */
  async setOutcomes(db: Db, outcomes: ({ id: string } & EventOutcome)[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = outcomes.map((o) => ({ id: o.id, status: o.status, outcome: o.outcome, org_id: o.orgId, error: o.error ?? null }));
    await sql`
      UPDATE webhook_events AS w SET status = v.status, outcome = v.outcome, org_id = v.org_id, error = v.error
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id text, status text, outcome text, org_id uuid, error text)
      WHERE w.id = v.id`.execute(db);
  },

  async setOutcome(db: Db, id: string, o: { status: 'applied' | 'ignored'; outcome: string; orgId: string | null }, onlyIfFailed = false): Promise<boolean> {
    let query = db.updateTable('webhook_events').set({ status: o.status, outcome: o.outcome, org_id: o.orgId, error: null }).where('id', '=', id);
    if (onlyIfFailed) query = query.where('status', '=', 'failed');
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Keeps a failed event (outside the failed transaction) so it can be replayed. */
  async recordFailure(db: Db, e: EventRecord & { error: string }): Promise<void> {
    await db
      .insertInto('webhook_events')
      .values({
        id: e.id,
        type: e.type,
        created_at: e.createdAt,
        status: 'failed',
        error: e.error,
        payload: JSON.stringify(e.payload),
        correlation_id: e.correlationId,
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ error: e.error, attempts: sql`webhook_events.attempts + 1` })
          .where('webhook_events.status', '=', 'failed'),
      )
      .execute();
  },

  /** A replay that failed again: the new error, one more attempt (only while still failed). */
  async noteFailedAgain(db: Db, id: string, error: string): Promise<void> {
    await db
      .updateTable('webhook_events')
      .set({ error, attempts: sql`attempts + 1` })
      .where('id', '=', id)
      .where('status', '=', 'failed')
      .execute();
  },

  async find(db: Db, id: string): Promise<WebhookEventRow | undefined> {
    return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** Newest first; `before` is the (received_at, id) of the last row of the previous page. */
  async list(
    db: Db,
    filter: { status?: string | undefined },
    limit: number,
    before?: { receivedAt: Date; id: string },
  ): Promise<WebhookEventRow[]> {
    let query = db.selectFrom('webhook_events').selectAll();
    if (filter.status) query = query.where('status', '=', filter.status as 'failed');
    if (before) {
      query = query.where((eb) =>
        eb.or([eb('received_at', '<', before.receivedAt), eb.and([eb('received_at', '=', before.receivedAt), eb('id', '<', before.id)])]),
      );
    }
    return query.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  /** Forgets ids older than the dedup window; failed events stay until replayed. */
  async purge(db: Db, windowS: number, now: Date): Promise<number> {
    const result = await db
      .deleteFrom('webhook_events')
      .where('received_at', '<', new Date(now.getTime() - windowS * 1000))
      .where('status', '!=', 'failed')
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
