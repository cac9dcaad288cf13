// The state table of docs/guide.md, "Billing states", row by row.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fold, rankOf, transition, type BillingState } from './state-machine.ts';
import type { ProviderEvent } from './event.ts';
import { graceExpired, planStatus } from './gate.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const GRACE_S = 14 * 86400;
const ctx = { now: NOW, gracePeriodS: GRACE_S, seatsUsed: 3 };
const unix = (iso: string) => Date.parse(iso) / 1000;
const CREATED = '2026-11-22T11:00:00Z';
// Grace counts from the event's own time, so applying it again gives the same date.
const graceEnd = new Date(Date.parse(CREATED) + GRACE_S * 1000);

const base: BillingState = {
  subscriptionStatus: 'trialing',
  plan: 'trial',
  priceVersion: null,
  seats: 5,
  overSeatLimit: false,
  currentPeriodEnd: null,
  gracePeriodEndsAt: null,
  providerCustomerId: null,
  providerSubscriptionId: null,
};

const sub = (over: Record<string, unknown> = {}, itemOver: Record<string, unknown> = {}) => ({
  id: 'sub_1',
  customer: 'cus_1',
  status: 'active',
  items: {
    data: [{ quantity: 10, current_period_end: unix('2026-12-22T00:00:00Z'), price: { id: 'price_v2', lookup_key: 'pro', product: 'prod_1' }, ...itemOver }],
  },
  ...over,
});
const ev = (type: string, object: Record<string, unknown>, created = unix(CREATED)): ProviderEvent => ({ id: `evt_${type}`, type, created, object });

function applied(state: BillingState, event: ProviderEvent, seatsUsed = ctx.seatsUsed) {
  const t = transition(state, event, { ...ctx, seatsUsed });
  assert.equal(t.outcome, 'applied', JSON.stringify(t));
  return t.outcome === 'applied' ? t : (undefined as never);
}

describe('the subscription state table (docs/guide.md, Billing states)', () => {
  test('trial (or any) + checkout.session.completed → active, period end set, trial left', () => {
    const t = applied(
      base,
      ev('checkout.session.completed', {
        customer: 'cus_1',
        subscription: 'sub_1',
        client_reference_id: 'org',
        current_period_end: unix('2026-12-22T00:00:00Z'),
      }),
    );
    assert.equal(t.state.subscriptionStatus, 'active');
    assert.deepEqual(t.state.currentPeriodEnd, new Date('2026-12-22T00:00:00Z'));
    assert.equal(t.state.providerCustomerId, 'cus_1');
    assert.equal(t.state.providerSubscriptionId, 'sub_1');
    const fromCanceled = applied(
      { ...base, subscriptionStatus: 'canceled', gracePeriodEndsAt: graceEnd },
      ev('checkout.session.completed', { customer: 'cus_1' }),
    );
    assert.equal(fromCanceled.state.subscriptionStatus, 'active');
    assert.equal(fromCanceled.state.gracePeriodEndsAt, null);
  });

  test('any + customer.subscription.created → status, plan, price version, period end from the event', () => {
    const t = applied(base, ev('customer.subscription.created', sub({ status: 'trialing' })));
    assert.equal(t.state.subscriptionStatus, 'trialing');
    assert.equal(t.state.plan, 'pro');
    assert.equal(t.state.priceVersion, 'price_v2');
    assert.deepEqual(t.state.currentPeriodEnd, new Date('2026-12-22T00:00:00Z'));
    assert.equal(t.state.seats, 10);
    // Older API versions: period end on the subscription; plan from the product without lookup_key.
    const old = applied(
      base,
      ev(
        'customer.subscription.created',
        sub({ current_period_end: unix('2027-01-01T00:00:00Z') }, { current_period_end: undefined, price: { id: 'price_1', product: 'prod_9' } }),
      ),
    );
    assert.deepEqual(old.state.currentPeriodEnd, new Date('2027-01-01T00:00:00Z'));
    assert.equal(old.state.plan, 'prod_9');
  });

  test('any + customer.subscription.updated → re-synced; over-limit recomputed only when the quantity changes', () => {
    const state = { ...base, subscriptionStatus: 'active', seats: 10 };
    const down = applied(state, ev('customer.subscription.updated', sub({ status: 'active' }, { quantity: 5 })), 8);
    assert.equal(down.state.seats, 5);
    assert.equal(down.state.overSeatLimit, true);
    const sameQty = applied({ ...state, overSeatLimit: false }, ev('customer.subscription.updated', sub({ status: 'past_due' }, { quantity: 10 })), 50);
    assert.equal(sameQty.state.overSeatLimit, false, 'rule 4: no recomputation without a quantity change');
    assert.equal(sameQty.state.subscriptionStatus, 'past_due');
    const up = applied(
      { ...state, overSeatLimit: true, seats: 5 },
      ev('customer.subscription.updated', sub({}, { quantity: 20, price: { id: 'price_v3', lookup_key: 'team' } })),
      8,
    );
    assert.equal(up.state.overSeatLimit, false);
    assert.equal(up.state.plan, 'team');
    assert.equal(up.state.priceVersion, 'price_v3');
    // created never recomputes (rule 4).
    const created = applied(state, ev('customer.subscription.created', sub({}, { quantity: 5 })), 50);
    assert.equal(created.state.overSeatLimit, false);
  });

  test("any + customer.subscription.deleted → canceled, grace = the event's time + 14 days", () => {
    const t = applied({ ...base, subscriptionStatus: 'active' }, ev('customer.subscription.deleted', sub({ status: 'canceled' })));
    assert.equal(t.state.subscriptionStatus, 'canceled');
    assert.deepEqual(t.state.gracePeriodEndsAt, graceEnd);
  });

  test('past_due + invoice.paid → active, grace cleared; otherwise nothing changes', () => {
    const t = applied({ ...base, subscriptionStatus: 'past_due', gracePeriodEndsAt: graceEnd }, ev('invoice.paid', { customer: 'cus_1' }));
    assert.equal(t.state.subscriptionStatus, 'active');
    assert.equal(t.state.gracePeriodEndsAt, null);
    assert.equal(transition({ ...base, subscriptionStatus: 'active' }, ev('invoice.paid', {}), ctx).outcome, 'ignored');
  });

  test('any + invoice.payment_failed → past_due, 14-day grace starts (and is not restarted by retries)', () => {
    const t = applied({ ...base, subscriptionStatus: 'active' }, ev('invoice.payment_failed', { customer: 'cus_1' }));
    assert.equal(t.state.subscriptionStatus, 'past_due');
    assert.deepEqual(t.state.gracePeriodEndsAt, graceEnd);
    const earlier = new Date(NOW.getTime() + 86400_000);
    const retry = applied({ ...t.state, gracePeriodEndsAt: earlier }, ev('invoice.payment_failed', {}, unix('2026-11-22T11:30:00Z')));
    assert.deepEqual(retry.state.gracePeriodEndsAt, earlier);
  });

  test('unknown types change nothing', () => {
    assert.equal(transition(base, ev('customer.created', {}), ctx).outcome, 'ignored');
  });

  test('a fold applies events in created order, ties in the table order, whatever order it is given them in', () => {
    const keyed = (event: ProviderEvent, seq: number) => ({
      event,
      key: { at: new Date((event.created as number) * 1000), rank: rankOf(event.type), seq: BigInt(seq) },
    });
    const events = [
      keyed(ev('invoice.payment_failed', { customer: 'cus_1' }, unix('2026-11-20T00:00:00Z')), 1),
      keyed(ev('invoice.paid', { customer: 'cus_1' }, unix('2026-11-21T00:00:00Z')), 2),
      keyed(ev('customer.subscription.updated', sub({}, { quantity: 7 }), unix('2026-11-21T00:00:00Z')), 3),
      keyed(ev('checkout.session.completed', { customer: 'cus_1', client_reference_id: 'org' }, unix('2026-11-19T00:00:00Z')), 4),
    ];
    const forward = fold(base, events, ctx);
    assert.deepEqual(fold(base, [...events].reverse(), ctx), forward);
    assert.equal(forward.subscriptionStatus, 'active', 'failed, then paid: active again');
    assert.equal(forward.gracePeriodEndsAt, null);
    assert.equal(forward.seats, 7);
    // A paid invoice and a failed one in the same second: the table puts invoice.paid first. The
    // arrival order (seq) says the opposite, so only the table's order gives past_due.
    const second = unix('2026-11-22T00:00:00Z');
    const tie = [keyed(ev('invoice.payment_failed', {}, second), 5), keyed(ev('invoice.paid', {}, second), 6)];
    assert.equal(fold({ ...base, subscriptionStatus: 'active' }, tie, ctx).subscriptionStatus, 'past_due');
    assert.equal(fold({ ...base, subscriptionStatus: 'active' }, [...tie].reverse(), ctx).subscriptionStatus, 'past_due');
  });
});

describe('gating rules 1-3', () => {
  const facts = { subscriptionStatus: 'past_due', gracePeriodEndsAt: new Date(NOW.getTime() + 1000), seats: 5, seatsUsed: 2 };
  test('past due within grace: writable (rule 1); after grace: blocked (rule 2)', () => {
    assert.equal(graceExpired(facts, NOW), false);
    assert.equal(graceExpired(facts, new Date(NOW.getTime() + 1000)), true);
    assert.equal(graceExpired({ ...facts, subscriptionStatus: 'canceled' }, new Date(NOW.getTime() + 5000)), true);
    assert.equal(graceExpired({ ...facts, subscriptionStatus: 'active' }, new Date(NOW.getTime() + 5000)), false);
  });
  test('plan status names the cap that is hit (rule 3)', () => {
    assert.deepEqual(planStatus({ ...facts, seatsUsed: 5 }, NOW).blockedBy, 'seats');
    assert.deepEqual(planStatus(facts, new Date(NOW.getTime() + 2000)), {
      subscriptionStatus: 'past_due',
      writable: false,
      blockedBy: 'grace_expired',
      seats: { limit: 5, used: 2 },
      gracePeriodEndsAt: facts.gracePeriodEndsAt.toISOString(),
    });
    assert.equal(planStatus(facts, NOW).blockedBy, null);
  });
});
