// Late events placed among an org's history (src/billing/late.ts; docs/api.md, "Billing"): after
// every delivery the org is what folding all its events in key order (created, type, arrival)
// gives, by the state machine's own pure fold, and every event keeps the state that fold has right
// after it, which is what the next late event starts from and stops at. Late events alone and many
// in one batch (one transaction), between events, tied with them on `created`, changing something
// every later event keeps or nothing at all, in seeded random orders.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { event, statusesOf, subscription } from './helpers/payments.ts';
import { billingRepo, stateFromJson, type OrgBilling } from '../src/store/repositories/billing.ts';
import { compareKeys, fold, HANDLED_EVENTS, rankOf, transition } from '../src/billing/state-machine.ts';
import { sql } from 'kysely';
import type { ProviderEvent } from '../src/billing/event.ts';

type Delivery = ReturnType<typeof event>;

const T = 1_950_000_000;

/** A small deterministic generator (mulberry32): the same orders on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('late events placed among an org’s history', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const db = () => server.deps.database.db;
  const billingOf = async (o: TestOrg): Promise<OrgBilling> => {
    const [org] = await billingRepo.lockOrgs(db(), { orgIds: [o.orgId], customerIds: [] });
    if (!org) throw new Error('no org');
    return org.billing;
  };
  /** Delivers the events together: one batch, one transaction. */
  const together = (events: Delivery[]) =>
    Promise.all(
      events.map((e) =>
        server.deps.billing.intake({ id: e.id, type: e.type, created: e.created, object: e.data.object }, Buffer.from(JSON.stringify(e)), 'corr-late'),
      ),
    );
  const inTurn = async (groups: Delivery[][]) => {
    for (const group of groups) assert.ok((await together(group)).every((r) => r === 'processed'));
  };

  const events = (o: TestOrg) => {
    const customer = `cus_${o.orgId.slice(0, 8)}`;
    const meta = { metadata: { orgId: o.orgId } };
    return {
      failed: (at: number) => event('invoice.payment_failed', { customer, status: 'open', ...meta }, { created: at }),
      paid: (at: number) => event('invoice.paid', { customer, status: 'paid', ...meta }, { created: at }),
      updated: (at: number, quantity: number, status = 'active') =>
        event('customer.subscription.updated', subscription(o.orgId, { customer, quantity, status, lookupKey: `plan${quantity}`, periodEnd: at + 86400 }), {
          created: at,
        }),
      // A period end from the event's time, never the clock's: two orgs given the same events must get the same state.
      created: (at: number, quantity: number) =>
        event('customer.subscription.created', subscription(o.orgId, { customer, quantity, periodEnd: at + 86400 }), { created: at }),
      deleted: (at: number) =>
        event('customer.subscription.deleted', subscription(o.orgId, { customer, status: 'canceled', periodEnd: at + 86400 }), { created: at }),
      checkout: (at: number) => event('checkout.session.completed', { customer, client_reference_id: o.orgId, subscription: 'sub_test' }, { created: at }),
    };
  };

  /**
   * The org's state is the fold of every delivered event in key order from its state before the
   * first, and each event's recorded state is the fold up to it.
   */
  async function assertFolded(o: TestOrg, base: OrgBilling, delivered: Delivery[], label: string) {
    const rows = await db()
      .selectFrom('webhook_events')
      .select(['id', 'seq', 'state_after', 'status'])
      .where(
        'id',
        'in',
        delivered.map((e) => e.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const seatsUsed = (await billingRepo.seatsUsed(db(), [o.orgId])).get(o.orgId) ?? 0;
    const ctx = { gracePeriodS: server.deps.config.gracePeriodS, seatsUsed, now: new Date(T * 1000) };
    const keyed = delivered.map((e) => {
      const ev: ProviderEvent = { id: e.id, type: e.type, created: e.created, object: e.data.object };
      return { id: e.id, event: ev, key: { at: new Date(e.created * 1000), rank: rankOf(e.type), seq: BigInt(byId.get(e.id)?.seq ?? -1) } };
    });
    keyed.sort((a, b) => compareKeys(a.key, b.key));
    let state = base;
    for (const e of keyed) {
      const t = transition(state, e.event, { ...ctx, now: e.key.at });
      if (t.outcome === 'applied') state = t.state;
      const row = byId.get(e.id);
      assert.ok(row?.status === 'applied' || row?.status === 'ignored', `${label}: ${e.id} is part of the history (${row?.status})`);
      assert.deepEqual(stateFromJson(row.state_after), state, `${label}: the state recorded after ${e.event.type} of ${e.event.created}`);
    }
    assert.deepEqual(await billingOf(o), fold(base, keyed, ctx), `${label}: the org`);
    assert.deepEqual(await billingOf(o), state);
  }

  test('the index orders types as the state machine does (migration 141 against HANDLED_EVENTS)', async () => {
    for (const type of [...HANDLED_EVENTS, 'customer.discount.created']) {
      const { rows } = await sql<{ rank: number | null }>`SELECT billing_event_rank(${type}) AS rank`.execute(db());
      assert.equal(rows[0]?.rank ?? -1, rankOf(type), type);
    }
  });

  test('a late event between others, tied with them on created: placed by type, then arrival', async () => {
    const o = await createOrg(server);
    const base = await billingOf(o);
    const e = events(o);
    const history = [e.checkout(T), e.updated(T + 10, 5), e.paid(T + 10), e.failed(T + 20), e.updated(T + 30, 7), e.paid(T + 40)];
    await inTurn(history.map((h) => [h]));
    await assertFolded(o, base, history, 'in order');
    // Same second as the update of T + 10: after it by type; the same type and second: after it by arrival.
    const late = [e.failed(T + 10), e.updated(T + 10, 3, 'past_due'), e.deleted(T + 20), e.paid(T + 20)];
    const delivered = [...history];
    for (const l of late) {
      await inTurn([[l]]);
      delivered.push(l);
      await assertFolded(o, base, delivered, `late ${l.type} at ${l.created - T}`);
    }
  });

  test('many late events in one batch, and late events that change nothing or what every later event keeps', async () => {
    const o = await createOrg(server);
    const base = await billingOf(o);
    const e = events(o);
    const history = [e.created(T, 4), ...Array.from({ length: 20 }, (_, i) => (i % 2 ? e.paid(T + 10 * (i + 1)) : e.failed(T + 10 * (i + 1))))];
    await inTurn(history.map((h) => [h]));
    const delivered = [...history];
    // A paid invoice where the org is active changes nothing: every later event ends as it did.
    const noop = e.paid(T + 5);
    await inTurn([[noop]]);
    delivered.push(noop);
    await assertFolded(o, base, delivered, 'a late event that changes nothing');
    // Seats no invoice touches: every later event's state changes.
    const seats = e.updated(T + 1, 9);
    await inTurn([[seats]]);
    delivered.push(seats);
    await assertFolded(o, base, delivered, 'a late event every later event keeps');
    // A batch: late events before, between and tied with the history, and one in order.
    const batch = [e.failed(T + 15), e.updated(T + 30, 2, 'past_due'), e.paid(T + 30), e.deleted(T + 95), e.failed(T + 300), e.updated(T + 2, 6)];
    await inTurn([batch]);
    delivered.push(...batch);
    await assertFolded(o, base, delivered, 'a batch of late events');
  });

  test('seeded random orders and batches: the same org as the fold, and as one at a time', async () => {
    for (const seed of [1, 2, 3, 4]) {
      const next = random(seed);
      const pick = <V>(xs: V[]) => xs[Math.floor(next() * xs.length)] as V;
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const [baseA, baseB] = [await billingOf(a), await billingOf(b)];
      // The same events for both orgs: kinds and seconds (few, so that many tie).
      const plan = Array.from({ length: 24 }, () => ({
        kind: pick(['failed', 'paid', 'paid', 'updated', 'deleted', 'created', 'checkout'] as const),
        at: T + Math.floor(next() * 6),
        n: Math.floor(next() * 4),
        status: pick(['active', 'past_due']),
      }));
      const order = plan.map((_, i) => i).sort(() => next() - 0.5);
      const groups: number[][] = [];
      for (let i = 0; i < order.length; ) {
        const size = 1 + Math.floor(next() * 5);
        groups.push(order.slice(i, i + size));
        i += size;
      }
      // Ids in delivery order: a batch numbers its events (seq) in id order, so both orgs break ties of
      // created and type alike, and apply each event from the same state.
      const position = new Map(order.map((i, p) => [i, p]));
      const make = (o: TestOrg) => {
        const e = events(o);
        return plan.map((p, i) => ({
          ...(p.kind === 'updated' ? e.updated(p.at, p.n, p.status) : p.kind === 'created' ? e.created(p.at, p.n) : e[p.kind](p.at)),
          id: `evt_${o.orgId.slice(0, 8)}_${String(position.get(i)).padStart(3, '0')}`,
        }));
      };
      const [evA, evB] = [make(a), make(b)];
      const deliveredA: Delivery[] = [];
      for (const g of groups) {
        const batch = g.map((i) => evA[i] as Delivery);
        await inTurn([batch]);
        deliveredA.push(...batch);
        await assertFolded(a, baseA, deliveredA, `seed ${seed}, after ${deliveredA.length} events`);
      }
      // One at a time, in the same order: the same org, version and outcomes.
      await inTurn(order.map((i) => [evB[i] as Delivery]));
      const deliveredB = order.map((i) => evB[i] as Delivery);
      const versions = await db().selectFrom('orgs').select(['id', 'version']).where('id', 'in', [a.orgId, b.orgId]).execute();
      const version = (o: TestOrg) => versions.find((v) => v.id === o.orgId)?.version;
      const comparable = async (o: TestOrg) => ({ ...(await billingOf(o)), providerCustomerId: null, version: version(o) });
      assert.deepEqual(await comparable(a), await comparable(b), `seed ${seed}`);
      await assertFolded(b, baseB, deliveredB, `seed ${seed}, one at a time`);
      const statuses = (ev: Delivery[]) =>
        statusesOf(
          server,
          ev.map((e) => e.id),
        );
      assert.deepEqual(await statuses(evA), await statuses(evB), `seed ${seed}: outcomes`);
    }
  });
});
