import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, staffAccount, userInput, type TestOrg } from './helpers/fixtures.ts';
import { deliver, event, signedHeader, statusesOf, subscription } from './helpers/payments.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { accountsRepo } from '../src/store/repositories/accounts.ts';
import { totpCode } from '../src/idp/totp.ts';
import { api, ok, refused } from './helpers/api.ts';

const DAY = 86_400_000;

describe('payment-provider webhooks and billing', () => {
  let server: TestServer;
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  before(async () => {
    server = await startServer({}, { clock: () => new Date(now()) });
  });
  after(() => server.close());

  const orgPath = (o: TestOrg) => ({ params: { path: { orgId: o.orgId } } });
  const org = async (o: TestOrg) => ok(await api(server, o).GET('/v1/orgs/{orgId}', orgPath(o)));
  const planStatus = async (o: TestOrg) => ok(await api(server, o).GET('/v1/orgs/{orgId}/plan-status', orgPath(o)));
  const auditOf = async (o: TestOrg, query: { limit?: number; action?: string }) =>
    ok(await api(server, o).GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: o.orgId }, query } })).items;
  const addUser = (o: TestOrg) => api(server, o).POST('/v1/orgs/{orgId}/users', { ...orgPath(o), body: userInput() });
  const ts = () => Math.floor(now() / 1000);

  test('each event of the state table, through HTTP, with the audit trail', async () => {
    const o = await createOrg(server);
    const customer = `cus_${o.orgId.slice(0, 8)}`;
    const periodEnd = ts() + 30 * 86400;
    let res = await deliver(
      server,
      event('checkout.session.completed', { customer, client_reference_id: o.orgId, subscription: 'sub_test', current_period_end: periodEnd }),
    );
    assert.deepEqual(res.body, { received: true, kind: 'patch' });
    let state = await org(o);
    assert.equal(state.subscriptionStatus, 'active');
    assert.equal(state.currentPeriodEnd, new Date(periodEnd * 1000).toISOString());

    res = await deliver(server, event('customer.subscription.created', subscription(o.orgId, { quantity: 12, lookupKey: 'team', priceId: 'price_team_v3' })));
    assert.equal(res.status, 200);
    state = await org(o);
    assert.deepEqual([state.plan, state.priceVersion, state.seats], ['team', 'price_team_v3', 12]);

    res = await deliver(
      server,
      event('customer.subscription.updated', subscription(o.orgId, { quantity: 12, lookupKey: 'business', priceId: 'price_biz_v1' })),
    );
    state = await org(o);
    assert.deepEqual([state.plan, state.priceVersion], ['business', 'price_biz_v1']);

    // Invoices find the org by the customer id stored from the earlier events.
    res = await deliver(server, event('invoice.payment_failed', { customer, status: 'open', attempt_count: 1 }));
    state = await org(o);
    assert.equal(state.subscriptionStatus, 'past_due');
    const grace = new Date(state.gracePeriodEndsAt ?? 0).getTime() - now();
    assert.ok(Math.abs(grace - 14 * DAY) < 60_000, `grace ~14 days, got ${grace}`);

    // A second later: in the same second the table's order would put the paid invoice first.
    res = await deliver(server, event('invoice.paid', { customer, status: 'paid' }, { created: ts() + 1 }));
    state = await org(o);
    assert.equal(state.subscriptionStatus, 'active');
    assert.equal(state.gracePeriodEndsAt, null);

    res = await deliver(server, event('customer.subscription.deleted', subscription(o.orgId, { status: 'canceled' }), { created: ts() + 2 }));
    state = await org(o);
    assert.equal(state.subscriptionStatus, 'canceled');
    assert.ok(state.gracePeriodEndsAt);

    const audit = await auditOf(o, { limit: 200 });
    const billing = audit.filter((e) => e.action.startsWith('billing.'));
    assert.deepEqual(billing.map((e) => e.action).reverse(), [
      'billing.checkout.session.completed',
      'billing.customer.subscription.created',
      'billing.customer.subscription.updated',
      'billing.invoice.payment_failed',
      'billing.invoice.paid',
      'billing.customer.subscription.deleted',
    ]);
    assert.equal(billing[0].actor.type, 'paymentProvider');
    assert.match(billing[0].actor.id, /^evt_/);
  });

  test('signature failures are 401 in the envelope and change nothing', async () => {
    const o = await createOrg(server);
    const evt = event('invoice.payment_failed', { customer: `cus_${o.orgId}`, metadata: { orgId: o.orgId } });
    const payload = JSON.stringify(evt);
    const cases: [string, Parameters<typeof deliver>[2]][] = [
      ['wrong secret', { secret: 'whsec_other' }],
      ['stale timestamp', { timestamp: ts() - 301 }],
      ['future timestamp', { timestamp: ts() + 330 }],
      ['trailing junk after v1', { header: `${signedHeader(payload)}junk` }],
      ['missing header', { header: null }],
      ['malformed header', { header: 'v1=abc' }],
      ['tampered body', { header: signedHeader(payload), rawBody: payload.replace('invoice.payment_failed', 'invoice.paid') }],
    ];
    for (const [name, opts] of cases) {
      const res = await deliver(server, evt, opts);
      assert.equal(res.status, 401, name);
      assert.equal(res.body.error.code, 'UNAUTHORIZED', name);
      assert.ok(res.body.error.correlationId);
    }
    assert.equal((await org(o)).subscriptionStatus, 'trialing');
    // During a secret roll the provider sends several v1 values: any one matching passes.
    const oldSig = signedHeader(payload, { secret: 'whsec_old' });
    const newSig = signedHeader(payload);
    const t = /t=(\d+)/.exec(newSig)?.[1];
    const both = `t=${t},v1=${/v1=([0-9a-f]+)/.exec(oldSig)?.[1]},v1=${/v1=([0-9a-f]+)/.exec(newSig)?.[1]}`;
    const accepted = await deliver(server, evt, { header: both });
    assert.deepEqual(accepted.body, { received: true, kind: 'patch' });
    assert.equal((await org(o)).subscriptionStatus, 'past_due');
  });

  test('Stripe-Signature is accepted as well as Provider-Signature (same scheme, same checks)', async () => {
    const o = await createOrg(server);
    const evt = event('invoice.payment_failed', { customer: `cus_s_${o.orgId.slice(0, 8)}`, metadata: { orgId: o.orgId } });
    const wrong = await deliver(server, evt, { headerName: 'stripe-signature', secret: 'whsec_other' });
    assert.equal(wrong.status, 401);
    const stale = await deliver(server, evt, { headerName: 'stripe-signature', timestamp: ts() - 301 });
    assert.equal(stale.status, 401);
    assert.deepEqual((await deliver(server, evt, { headerName: 'stripe-signature' })).body, { received: true, kind: 'patch' });
    assert.equal((await org(o)).subscriptionStatus, 'past_due');
  });

  test('a body without id, type or data.object is 400', async () => {
    for (const body of [
      { type: 'invoice.paid', data: { object: {} } },
      { id: 'evt_x', data: { object: {} } },
      { id: 'evt_x', type: 'x', data: {} },
    ]) {
      const res = await deliver(server, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
    const notJson = await deliver(server, null, { rawBody: '{"id": ' });
    assert.equal(notJson.status, 400);
  });

  test('dedup: a repeat within the window is acknowledged and not applied again', async () => {
    const o = await createOrg(server);
    const evt = event('invoice.payment_failed', { customer: `cus_${o.orgId}`, metadata: { orgId: o.orgId } });
    assert.deepEqual((await deliver(server, evt)).body, { received: true, kind: 'patch' });
    assert.deepEqual((await deliver(server, evt)).body, { received: true, deduplicated: true });
    const audit = await auditOf(o, { action: 'billing.invoice.payment_failed' });
    assert.equal(audit.length, 1);
  });

  test('concurrent deliveries of one event apply it exactly once', async () => {
    const o = await createOrg(server);
    const evt = event('customer.subscription.updated', subscription(o.orgId, { quantity: 33 }));
    const results = await Promise.all(Array.from({ length: 6 }, () => deliver(server, evt)));
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(results.filter((r) => r.body.kind === 'patch').length, 1);
    assert.equal(results.filter((r) => r.body.deduplicated).length, 5);
    const audit = await auditOf(o, { action: 'billing.customer.subscription.updated' });
    assert.equal(audit.length, 1);
  });

  test('out-of-order delivery: an older event does not overwrite newer state', async () => {
    const o = await createOrg(server);
    const t = ts();
    await deliver(server, event('customer.subscription.updated', subscription(o.orgId, { quantity: 20 }), { created: t }));
    const late = await deliver(server, event('customer.subscription.updated', subscription(o.orgId, { quantity: 3 }), { created: t - 60 }));
    assert.deepEqual(late.body, { received: true, kind: 'patch' }, 'acknowledged');
    assert.equal((await org(o)).seats, 20);
  });

  test('unknown event types are acknowledged and recorded, and change nothing', async () => {
    const o = await createOrg(server);
    const before = await org(o);
    const res = await deliver(server, event('customer.discount.created', { customer: `cus_${o.orgId}`, metadata: { orgId: o.orgId } }));
    assert.deepEqual(res.body, { received: true, kind: 'patch' });
    const afterOrg = await org(o);
    assert.equal(afterOrg.version, before.version);
  });

  test('an event for an unknown customer waits, is listed as pending, and is applied when a checkout links its customer', async () => {
    const o = await createOrg(server);
    const customer = `cus_late_${o.orgId.slice(0, 6)}`;
    // The invoice arrives before the checkout that links the customer to the org: no org yet.
    // Both are dated here, the invoice 5 s after the checkout, however long the steps between take.
    const checkoutCreated = ts();
    const invoice = event('invoice.payment_failed', { customer, status: 'open' }, { created: checkoutCreated + 5 });
    const res = await deliver(server, invoice, {});
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { received: true });
    assert.equal((await deliver(server, invoice)).body.deduplicated, true, 'a retry of a kept event is a duplicate');

    // Staff see it and replay it (admin route), after the checkout arrived.
    const staff = await staffAccount(server);
    const account = await accountsRepo.byId(server.deps.database.db, staff.userId);
    const started = await server.deps.signIn.enrolment(staff.userId);
    assert.ok(account && started);
    await server.deps.signIn.confirmEnrolment(staff.userId, totpCode(started.secret, Date.now() - 30_000));
    const admin = await oidcClient(server.deps.config.authUrl, 'admin-client-dev', server.deps.config.adminUrl);
    const token = (await signIn(admin, { ...staff, username: staff.email, otp: () => totpCode(started.secret) })).tokens.id_token as string;
    const asStaff = api(server, { token });
    const events = (query: { status?: 'applied' | 'ignored' | 'failed' | 'pending'; limit?: number; cursor?: string; orgId?: string; type?: string }) =>
      asStaff.GET('/v1/admin/webhook-events', { params: { query } });
    const replay = (eventId: string) => asStaff.POST('/v1/admin/webhook-events/{eventId}/replay', { params: { path: { eventId } } });
    const failed = ok(await events({ status: 'failed' }), 200);
    assert.equal(
      failed.items.find((e) => e.id === invoice.id),
      undefined,
      'waiting is not failing',
    );
    const pending = ok(await events({ status: 'pending', limit: 200 })).items;
    const kept = pending.find((e) => e.id === invoice.id);
    assert.equal(kept?.customerId, customer);
    // Pages of one, newest first, no repeats.
    const all = ok(await events({ limit: 200 })).items.map((e) => e.id);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await events({ limit: 3, cursor }));
      paged.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor && paged.length < 200);
    assert.deepEqual(paged.slice(0, all.length), all);
    refused(await events({ cursor: 'nonsense' }), 400);

    const early = ok(await replay(invoice.id));
    assert.equal(early.result, 'pending', 'still no org: it keeps waiting');
    // The checkout is older than the invoice: applied in created order, the org ends past due.
    await deliver(server, event('checkout.session.completed', { customer, client_reference_id: o.orgId }, { created: checkoutCreated }));
    assert.equal((await org(o)).subscriptionStatus, 'past_due');
    const applied = ok(await events({ orgId: o.orgId, type: 'invoice.payment_failed' })).items;
    assert.deepEqual(
      applied.map((e) => [e.id, e.status]),
      [[invoice.id, 'applied']],
    );
    assert.equal(ok(await replay(invoice.id)).result, 'not-failed');
    // Staff only.
    refused(await api(server).GET('/v1/admin/webhook-events', {}), 401);
    refused(await api(server, o).GET('/v1/admin/webhook-events', {}), 403);
    refused(await api(server, o).POST('/v1/admin/webhook-events/{eventId}/replay', { params: { path: { eventId: invoice.id } } }), 403);
  });

  // Deliveries that arrive while a transaction is being written are applied together (group
  // commit). intake() called several times in one turn puts them in one batch.
  const intakeAll = (events: ReturnType<typeof event>[]) =>
    Promise.all(
      events.map((e) =>
        server.deps.billing.intake({ id: e.id, type: e.type, created: e.created, object: e.data.object }, Buffer.from(JSON.stringify(e)), 'corr-burst'),
      ),
    );
  const receivedAt = async (ids: string[]) =>
    new Set(
      (await server.deps.database.db.selectFrom('webhook_events').select('received_at').where('id', 'in', ids).execute()).map((r) => r.received_at.getTime()),
    );
  const billingState = async (o: TestOrg) => {
    const s = await org(o);
    return { status: s.subscriptionStatus, seats: s.seats, plan: s.plan, grace: s.gracePeriodEndsAt !== null, version: s.version };
  };

  test('a burst applied in one transaction ends as if delivered one at a time', async () => {
    const burst = async () => {
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const customer = `cus_burst_${a.orgId.slice(0, 8)}`;
      const t = ts();
      const checkout = event('checkout.session.completed', { customer, client_reference_id: a.orgId }, { created: t });
      const events = [
        checkout,
        // Finds the org only through the customer the checkout just linked, in the same batch.
        event('invoice.payment_failed', { customer, status: 'open' }, { created: t + 1 }),
        event('customer.subscription.updated', subscription(b.orgId, { quantity: 7, lookupKey: 'team' }), { created: t }),
        checkout,
        event('customer.discount.created', { customer, metadata: { orgId: a.orgId } }, { created: t + 2 }),
        event('invoice.payment_failed', { customer: `cus_nobody_${a.orgId.slice(0, 8)}` }, { created: t }),
        event('customer.subscription.updated', subscription(b.orgId, { quantity: 3 }), { created: t - 60 }),
      ];
      return { a, b, events };
    };

    const together = await burst();
    const results = await intakeAll(together.events);
    assert.deepEqual(results, ['processed', 'processed', 'processed', 'duplicate', 'processed', 'pending', 'processed']);
    assert.equal((await receivedAt(together.events.map((e) => e.id))).size, 1, 'one transaction: one received_at');

    const apart = await burst();
    const one: string[] = [];
    for (const e of apart.events) one.push((await intakeAll([e]))[0] as string);
    assert.deepEqual(one, results);
    assert.equal((await receivedAt(apart.events.map((e) => e.id))).size, apart.events.length - 1, 'one transaction each (the duplicate has none)');

    for (const [x, y] of [
      [together.a, apart.a],
      [together.b, apart.b],
    ] as const) {
      assert.deepEqual(await billingState(x), await billingState(y));
    }
    assert.deepEqual(await billingState(together.a), { status: 'past_due', seats: 50, plan: 'trial', grace: true, version: 3 });
    assert.deepEqual(await billingState(together.b), { status: 'active', seats: 7, plan: 'team', grace: false, version: 2 });
    const audit = await auditOf(together.a, { limit: 50 });
    assert.deepEqual(
      audit
        .filter((e) => e.action.startsWith('billing.'))
        .map((e) => [e.action, e.correlationId])
        .reverse(),
      [
        ['billing.checkout.session.completed', 'corr-burst'],
        ['billing.invoice.payment_failed', 'corr-burst'],
      ],
    );
    const failed = await server.deps.database.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('id', '=', together.events[5]?.id as string)
      .executeTakeFirstOrThrow();
    assert.equal(failed.status, 'pending');
    assert.equal(failed.customer_id, `cus_nobody_${together.a.orgId.slice(0, 8)}`);
  });

  test('in one batch, an event that waits for its customer is applied when a later event of the batch links it', async () => {
    const run = async (together: boolean) => {
      const o = await createOrg(server);
      const customer = `cus_wait_${o.orgId.slice(0, 8)}`;
      const t = ts();
      const events = [
        event('invoice.payment_failed', { customer }, { created: t + 1 }),
        event('customer.subscription.updated', { ...subscription(o.orgId, { customer, quantity: 4 }), metadata: {} }, { created: t + 2 }),
        event('checkout.session.completed', { customer, client_reference_id: o.orgId }, { created: t }),
      ];
      const results: string[] = together ? await intakeAll(events) : [];
      if (!together) for (const e of events) results.push((await intakeAll([e]))[0] as string);
      return {
        o,
        results,
        statuses: await statusesOf(
          server,
          events.map((e) => e.id),
        ),
      };
    };
    const together = await run(true);
    const apart = await run(false);
    assert.deepEqual(apart.results, ['pending', 'pending', 'processed']);
    assert.deepEqual(together.results, ['processed', 'processed', 'processed'], 'applied within the batch that linked them');
    assert.deepEqual(together.statuses, ['applied', 'applied', 'applied']);
    assert.deepEqual(apart.statuses, together.statuses);
    const { version: _v1, ...a } = await billingState(together.o);
    const { version: _v2, ...b } = await billingState(apart.o);
    assert.deepEqual(a, b);
    // Failed at t + 1, then the update of t + 2 says active again.
    assert.deepEqual(a, { status: 'active', seats: 4, plan: 'pro', grace: false });
  });

  test('a batch that fails as a whole is applied one event at a time: one bad event fails alone', async () => {
    const [a, b, c] = [await createOrg(server), await createOrg(server), await createOrg(server)];
    const customer = `cus_shared_${a.orgId.slice(0, 8)}`;
    // Two orgs cannot share a provider customer (a unique key): the batch's update fails.
    const events = [
      event('checkout.session.completed', { customer, client_reference_id: a.orgId }),
      event('checkout.session.completed', { customer, client_reference_id: b.orgId }),
      event('customer.subscription.updated', subscription(c.orgId, { quantity: 9 })),
    ];
    assert.deepEqual(await intakeAll(events), ['processed', 'failed', 'processed']);
    assert.equal((await org(a)).subscriptionStatus, 'active');
    assert.equal((await org(b)).subscriptionStatus, 'trialing');
    assert.equal((await org(c)).seats, 9);
    const kept = await server.deps.database.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('id', '=', events[1]?.id as string)
      .executeTakeFirstOrThrow();
    assert.equal(kept.status, 'failed');
    // Staff read a sentence and a stable code; the database's own text stays in the log.
    assert.equal(kept.error_code, 'CUSTOMER_TAKEN');
    assert.match(kept.error ?? '', /payment customer that another organisation already has/);
    assert.doesNotMatch(kept.error ?? '', /duplicate key|constraint|orgs_provider/);
  });

  test('grace: past due writes go on (rule 1); after grace, writes 402 and reads 200 (rule 2); revocation still works', async () => {
    const o = await createOrg(server);
    await deliver(server, event('invoice.payment_failed', { customer: `cus_${o.orgId}`, metadata: { orgId: o.orgId } }));
    ok(await addUser(o), 201);
    assert.equal((await planStatus(o)).writable, true);
    offsetMs = 14 * DAY + 60_000;
    try {
      const { error } = refused(await addUser(o), 402);
      assert.equal(error.code, 'PAYMENT_REQUIRED');
      assert.equal(error.details?.blockedBy, 'grace_expired');
      assert.match(error.message, /grace period ended/);
      const client = api(server, o);
      refused(await client.PATCH('/v1/orgs/{orgId}', { ...orgPath(o), body: { version: 1, name: 'x' } }), 402);
      refused(await client.POST('/v1/orgs/{orgId}/templates', { ...orgPath(o), body: { name: 't', html: '<p>x</p>' } }), 402);
      refused(await client.POST('/v1/orgs/{orgId}/api-keys', { ...orgPath(o), body: { name: 'k' } }), 402);
      ok(await client.GET('/v1/orgs/{orgId}/users', orgPath(o)), 200);
      const status = await planStatus(o);
      assert.deepEqual([status.writable, status.blockedBy], [false, 'grace_expired']);
      const revoke = await client.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', { params: { path: { orgId: o.orgId, keyId: o.keyId } } });
      assert.equal(revoke.response.status, 200, 'a leaked key is always revocable');
    } finally {
      offsetMs = 0;
    }
  });

  test('a paid invoice ends the block', async () => {
    const o = await createOrg(server);
    await deliver(server, event('invoice.payment_failed', { customer: `cus_pay_${o.orgId.slice(0, 6)}`, metadata: { orgId: o.orgId } }));
    offsetMs = 15 * DAY;
    try {
      refused(await addUser(o), 402);
      await deliver(server, event('invoice.paid', { customer: `cus_pay_${o.orgId.slice(0, 6)}` }, { created: ts() }), { timestamp: ts() });
      ok(await addUser(o), 201);
    } finally {
      offsetMs = 0;
    }
  });

  test('seat cap: creating a user when every seat is taken is 402; quantity changes recompute overSeatLimit', async () => {
    const o = await createOrg(server, { seats: 2 });
    await createUser(server, o);
    const full = refused(await addUser(o), 402);
    assert.equal(full.error.details?.blockedBy, 'seats');
    assert.deepEqual(full.error.details?.seats, { limit: 2, used: 2 });
    const { quota, ...status } = await planStatus(o);
    assert.deepEqual(status, { subscriptionStatus: 'trialing', writable: true, blockedBy: 'seats', seats: { limit: 2, used: 2 }, gracePeriodEndsAt: null });
    assert.equal(quota.limit, 100_000, 'the quota beside the caps (test/quota.test.ts)');
    // Other writes are not affected by the seat cap.
    ok(await api(server, o).PATCH('/v1/orgs/{orgId}', { ...orgPath(o), body: { version: 1, name: 'Still writable' } }), 200);

    await deliver(server, event('customer.subscription.updated', subscription(o.orgId, { quantity: 1 })));
    let state = await org(o);
    assert.deepEqual([state.seats, state.seatsUsed, state.overSeatLimit], [1, 2, true]);
    await deliver(server, event('customer.subscription.updated', subscription(o.orgId, { quantity: 5 })));
    state = await org(o);
    assert.deepEqual([state.seats, state.overSeatLimit], [5, false]);
    assert.equal((await planStatus(o)).blockedBy, null);
    ok(await addUser(o), 201);
  });

  test('concurrent creations cannot both take the last seat', async () => {
    const o = await createOrg(server, { seats: 2 });
    const results = await Promise.all([1, 2, 3].map(() => addUser(o)));
    assert.deepEqual(results.map((r) => r.response.status).sort(), [201, 402, 402]);
  });
});

describe('webhook configuration and dedup window', () => {
  test('no WEBHOOK_SECRET: 503', async () => {
    const server = await startServer({ WEBHOOK_SECRET: '' });
    try {
      const res = await deliver(server, event('invoice.paid', {}));
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
    } finally {
      await server.close();
    }
  });

  test('after the dedup window an event id is processed again', async () => {
    // The window is measured on the service's clock, which stands still but for the test's moves.
    const start = Date.now();
    let offsetMs = 0;
    const server = await startServer({ WEBHOOK_DEDUP_S: '60' }, { clock: () => new Date(start + offsetMs) });
    try {
      const o = await createOrg(server);
      const evt = event('invoice.payment_failed', { customer: `cus_${o.orgId}`, metadata: { orgId: o.orgId } });
      assert.equal((await deliver(server, evt)).body.kind, 'patch');
      offsetMs = 59_000;
      assert.equal((await deliver(server, evt)).body.deduplicated, true);
      offsetMs = 61_000;
      assert.equal((await deliver(server, evt)).body.kind, 'patch');
      const unrelated = event('customer.discount.created', { customer: 'cus_nobody_at_all' });
      assert.equal((await deliver(server, unrelated)).body.kind, 'patch');
      const stored = (id: string) => server.deps.database.db.selectFrom('webhook_events').select('id').where('id', '=', id).executeTakeFirst();
      offsetMs = 120_000;
      await server.deps.billing.purge();
      assert.ok(await stored(unrelated.id), 'the fresh delivery is inside the window');
      offsetMs = 122_000;
      assert.ok((await server.deps.billing.purge()) >= 1);
      assert.equal(await stored(unrelated.id), undefined, 'ids older than the window are purged');
      assert.ok(await stored(evt.id), "an org's history stays: a late event is applied by re-applying it");
    } finally {
      await server.close();
    }
  });
});
