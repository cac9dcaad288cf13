import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { WebhookEventRow } from '../schema.ts';
import type { BillingState } from '../../billing/state-machine.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const billingRepo = {
  /**
   * The org's billing state, locked for the rest of the transaction (events of one org apply in
   * turn). The live user count costs a query: only callers that need it ask for it.
   */
  async lockOrg(
    db: Db,
    by: { orgId?: string | undefined; customerId?: string | undefined },
    opts: { countSeats?: boolean } = { countSeats: true },
  ): Promise<(BillingState & { orgId: string }) | undefined> {
    let query = db.selectFrom('orgs').selectAll();
    if (by.orgId) {
      if (!UUID.test(by.orgId)) return undefined;
      query = query.where('id', '=', by.orgId);
    } else if (by.customerId) {
      query = query.where('provider_customer_id', '=', by.customerId);
    } else {
      return undefined;
    }
    const org = await query.forUpdate().executeTakeFirst();
    if (!org) return undefined;
    const used = opts.countSeats
      ? await db
          .selectFrom('users')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('org_id', '=', org.id)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow()
      : { n: Number.NaN };
    return {
      orgId: org.id,
      subscriptionStatus: org.subscription_status,
      plan: org.plan,
      priceVersion: org.price_version,
      seats: org.seats,
      seatsUsed: used.n,
      overSeatLimit: org.over_seat_limit,
      currentPeriodEnd: org.current_period_end,
      gracePeriodEndsAt: org.grace_period_ends_at,
      providerCustomerId: org.provider_customer_id,
      providerSubscriptionId: org.provider_subscription_id,
      billingEventAt: org.billing_event_at,
    };
  },

  async saveOrg(db: Db, orgId: string, s: BillingState): Promise<void> {
    await db
      .updateTable('orgs')
      .set({
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
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', orgId)
      .execute();
  },

  /**
   * Claims an event id for processing, atomically: true when it is new (or was last seen longer
   * ago than the dedup window). A concurrent delivery of the same id waits on the unique key and
   * then finds it taken.
   */
  async claimEvent(
    db: Db,
    e: { id: string; type: string; createdAt: Date | null; payload: unknown; correlationId: string },
    windowS: number,
  ): Promise<boolean> {
    const row = await db
      .insertInto('webhook_events')
      .values({
        id: e.id,
        type: e.type,
        created_at: e.createdAt,
        status: 'applied',
        payload: JSON.stringify(e.payload),
        correlation_id: e.correlationId,
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({
            type: e.type,
            created_at: e.createdAt,
            received_at: sql`now()`,
            status: 'applied',
            error: null,
            outcome: null,
            payload: JSON.stringify(e.payload),
            correlation_id: e.correlationId,
            attempts: 1,
          })
          .where('webhook_events.received_at', '<', sql<Date>`now() - make_interval(secs => ${windowS})`),
      )
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  },

  async setOutcome(db: Db, id: string, o: { status: 'applied' | 'ignored'; outcome: string; orgId: string | null }, onlyIfFailed = false): Promise<boolean> {
    let query = db.updateTable('webhook_events').set({ status: o.status, outcome: o.outcome, org_id: o.orgId, error: null }).where('id', '=', id);
    if (onlyIfFailed) query = query.where('status', '=', 'failed');
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Keeps a failed event (outside the failed transaction) so it can be replayed. */
  async recordFailure(db: Db, e: { id: string; type: string; createdAt: Date | null; payload: unknown; correlationId: string; error: string }): Promise<void> {
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
  async purge(db: Db, windowS: number): Promise<number> {
    const result = await db
      .deleteFrom('webhook_events')
      .where('received_at', '<', sql<Date>`now() - make_interval(secs => ${windowS})`)
      .where('status', '!=', 'failed')
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
