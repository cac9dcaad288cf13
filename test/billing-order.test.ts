// Order-independent billing (docs/api.md, "Billing"): an org's state is what
// applying all its events in `created` order gives, whatever order they arrived in. Every
// permutation of a real sign-up and of a failure-and-recovery, in both of Stripe's API shapes,
// delivered over HTTP, ends in the same org.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import type Stripe from 'stripe';
import { deliver, event, staffToken } from './helpers/payments.ts';

/** Stripe's own types (the installed SDK speaks the newer API), every field optional. */
type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

const T = 1_900_000_000; // the sign-up's second
const PERIOD_END = T + 30 * 86400;
const price = { id: 'price_team_v3', object: 'price', lookup_key: 'team', product: 'prod_team' } satisfies DeepPartial<Stripe.Price>;

interface Shape {
  subscription(customer: string, over: { status: string; quantity: number }): Record<string, unknown>;
  invoice(customer: string, status: 'paid' | 'open'): Record<string, unknown>;
}

// Stripe's API before 2025-03-31 (basil): the period on the subscription, the subscription on the invoice.
const before20250331: Shape = {
  subscription: (customer, { status, quantity }) => ({
    id: `sub_${customer}`,
    object: 'subscription',
    customer,
    status,
    current_period_end: PERIOD_END,
    metadata: {},
    items: { object: 'list', data: [{ id: `si_${customer}`, object: 'subscription_item', quantity, price }] },
  }),
  invoice: (customer, status) => ({ id: `in_${customer}_${status}`, object: 'invoice', customer, status, subscription: `sub_${customer}` }),
};

// Since 2025-03-31: the period on the subscription's items, the subscription under `parent`.
const since20250331: Shape = {
  subscription: (customer, { status, quantity }) =>
    ({
      id: `sub_${customer}`,
      object: 'subscription',
      customer,
      status,
      metadata: {},
      items: { object: 'list', data: [{ id: `si_${customer}`, object: 'subscription_item', quantity, current_period_end: PERIOD_END, price }] },
    }) satisfies DeepPartial<Stripe.Subscription>,
  invoice: (customer, status) =>
    ({
      id: `in_${customer}_${status}`,
      object: 'invoice',
      customer,
      status,
      parent: { type: 'subscription_details', subscription_details: { subscription: `sub_${customer}`, metadata: {} } },
    }) satisfies DeepPartial<Stripe.Invoice>,
};

const SHAPES = { 'before 2025-03-31': before20250331, 'since 2025-03-31': since20250331 };

/** A sign-up through Checkout as Stripe sends it: the org is named only in client_reference_id. */
function signUp(o: TestOrg, customer: string, shape: Shape) {
  return {
    checkout: event(
      'checkout.session.completed',
      {
        id: `cs_${customer}`,
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: o.orgId,
        customer,
        subscription: `sub_${customer}`,
        metadata: {},
      } satisfies DeepPartial<Stripe.Checkout.Session>,
      { created: T + 1 },
    ),
    created: event('customer.subscription.created', shape.subscription(customer, { status: 'active', quantity: 12 }), { created: T }),
    paid: event('invoice.paid', shape.invoice(customer, 'paid'), { created: T }),
  };
}

/**
 * A failed renewal, the subscription update Stripe sends with it (past due; the customer also
 * added seats), and the retry that pays two days later: the org ends active with 15 seats.
 */
function recovery(customer: string, shape: Shape) {
  return {
    failed: event('invoice.payment_failed', shape.invoice(customer, 'open'), { created: T + 86400 }),
    updated: event('customer.subscription.updated', shape.subscription(customer, { status: 'past_due', quantity: 15 }), { created: T + 86400 + 1 }),
    paid: event('invoice.paid', { ...shape.invoice(customer, 'paid'), id: `in_${customer}_retry` }, { created: T + 3 * 86400 }),
  };
}

describe('billing is order-independent', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startServer();
    token = await staffToken(server);
  });
  after(() => server.close());

  const billing = async (o: TestOrg) => {
    const org = (await server.request('GET', `/v1/orgs/${o.orgId}`, { key: o.key })).body;
    const { subscriptionStatus, plan, priceVersion, seats, overSeatLimit, currentPeriodEnd, gracePeriodEndsAt } = org;
    return { subscriptionStatus, plan, priceVersion, seats, overSeatLimit, currentPeriodEnd, gracePeriodEndsAt };
  };
  const deliverAll = async (events: ReturnType<typeof event>[]) => {
    for (const e of events) {
      const res = await deliver(server, e);
      assert.equal(res.status, 200, res.text);
    }
  };
  const statuses = async (o: TestOrg) =>
    (await server.request('GET', `/v1/admin/webhook-events?orgId=${o.orgId}&limit=100`, { token })).body.items.map((e: { status: string }) => e.status);

  const signedUp = {
    subscriptionStatus: 'active',
    plan: 'team',
    priceVersion: 'price_team_v3',
    seats: 12,
    overSeatLimit: false,
    currentPeriodEnd: new Date(PERIOD_END * 1000).toISOString(),
    gracePeriodEndsAt: null,
  };

  for (const [shapeName, shape] of Object.entries(SHAPES)) {
    test(`every order of a sign-up (checkout, subscription.created, invoice.paid), ${shapeName}, ends in the same org`, async () => {
      for (const order of permutations(['checkout', 'created', 'paid'] as const)) {
        const o = await createOrg(server);
        const customer = `cus_${o.orgId.slice(0, 8)}`;
        const events = signUp(o, customer, shape);
        await deliverAll(order.map((name) => events[name]));
        assert.deepEqual(await billing(o), signedUp, order.join(', '));
        const seen = await statuses(o);
        assert.equal(seen.length, 3, `${order.join(', ')}: every event linked to the org`);
        assert.ok(
          seen.every((s: string) => s === 'applied' || s === 'ignored'),
          `${order.join(', ')}: none left waiting or failed (${seen})`,
        );
        // Replaying changes nothing: nothing is failed, and a repeat is a duplicate.
        assert.deepEqual((await deliver(server, events.created)).body, { received: true, deduplicated: true });
      }
    });

    test(`every order of a failure and recovery (payment_failed, invoice.paid, subscription.updated), ${shapeName}, ends in the same org`, async () => {
      for (const order of permutations(['failed', 'paid', 'updated'] as const)) {
        const o = await createOrg(server);
        const customer = `cus_${o.orgId.slice(0, 8)}`;
        const up = signUp(o, customer, shape);
        await deliverAll([up.checkout, up.created, up.paid]);
        const events = recovery(customer, shape);
        await deliverAll(order.map((name) => events[name]));
        assert.deepEqual(await billing(o), { ...signedUp, seats: 15 }, order.join(', '));
      }
    });
  }

  test('a pending event whose customer a concurrent transaction linked is applied by the periodic sweep', async () => {
    const o = await createOrg(server);
    const customer = `cus_race_${o.orgId.slice(0, 8)}`;
    const { failed } = recovery(customer, since20250331);
    assert.deepEqual((await deliver(server, failed)).body, { received: true });
    // As if a checkout in another instance linked the customer while this event was being kept:
    // that transaction could not see it waiting.
    await server.deps.database.db.updateTable('orgs').set({ provider_customer_id: customer }).where('id', '=', o.orgId).execute();
    assert.equal((await billing(o)).subscriptionStatus, 'trialing');
    await server.deps.billing.purge();
    assert.equal((await billing(o)).subscriptionStatus, 'past_due');
    assert.deepEqual(await statuses(o), ['applied']);
  });

  test('an org whose events were stored before each kept its state after it (migration 136) still places a late event in its history', async () => {
    const o = await createOrg(server);
    const customer = `cus_legacy_${o.orgId.slice(0, 8)}`;
    const up = signUp(o, customer, since20250331);
    const events = recovery(customer, since20250331);
    await deliverAll([up.checkout, up.created, up.paid, events.failed, events.paid]);
    // As the events of a database migrated from before: no state recorded beside them.
    await server.deps.database.db.updateTable('webhook_events').set({ state_after: null }).where('org_id', '=', o.orgId).execute();
    // The update (past due, 15 seats) belongs between the failure and the retry that paid.
    await deliverAll([events.updated]);
    assert.deepEqual(await billing(o), { ...signedUp, seats: 15 });
    // Its history now has states again: a second late event is placed from them.
    const late = event('invoice.payment_failed', since20250331.invoice(customer, 'open'), { created: T + 2 * 86400 });
    await deliverAll([late]);
    assert.deepEqual(await billing(o), { ...signedUp, seats: 15 }, 'the retry that paid, after it, still decides');
  });

  test('the failure alone, in either order with the sign-up, leaves the org past due with a grace counted from the failure', async () => {
    for (const order of [
      ['signup', 'failed'],
      ['failed', 'signup'],
    ] as const) {
      const o = await createOrg(server);
      const customer = `cus_${o.orgId.slice(0, 8)}`;
      const up = signUp(o, customer, since20250331);
      const { failed } = recovery(customer, since20250331);
      for (const step of order) await deliverAll(step === 'signup' ? [up.paid, up.created, up.checkout] : [failed]);
      assert.deepEqual(
        await billing(o),
        {
          ...signedUp,
          subscriptionStatus: 'past_due',
          gracePeriodEndsAt: new Date((T + 86400 + 14 * 86400) * 1000).toISOString(),
        },
        order.join(', '),
      );
    }
  });
});
