// The staff API over orgs and payment events (docs/api.md, "Staff"): search with its filters,
// sorts and pages; one org with its billing fields; creating an org as the CLI does; the event
// list, one event's payload, replaying one or every failed event; each staff action in the audit
// with the staff member as actor and the request's correlation id. The security cases of every
// staff route are in tenancy-security.test.ts (its table fails when a route is missing).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { deliver, event, staffToken, subscription } from './helpers/payments.ts';
import { oidcClient, signIn } from './helpers/browser.ts';

const DAY = 86_400_000;

describe('staff API: orgs and payment events', () => {
  let server: TestServer;
  let token: string;
  let staffId: string;
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  before(async () => {
    // ID tokens that outlive the tests' jumps of the clock past a grace period.
    server = await startServer({ ID_TOKEN_TTL_S: String(30 * 86_400) }, { clock: () => new Date(now()) });
    token = await staffToken(server);
    staffId = decodeJwt(token).sub as string;
  });
  after(() => server.close());

  const get = (path: string) => server.request('GET', path, { token });
  /** Orgs named `<tag> …`, so what other tests made never shows in these searches. */
  const tagged = async (tag: string, names: string[], opts: { seats?: number } = {}) => {
    const made: TestOrg[] = [];
    for (const name of names) made.push(await createOrg(server, { name: `${tag} ${name}`, ...opts }));
    return made;
  };
  const names = (body: { items: { name: string }[] }) => body.items.map((o) => o.name);

  test('POST /v1/admin/orgs creates an org and its owner as the CLI does, audited with the staff member and the correlation id', async () => {
    const correlationId = `corr-${randomUUID()}`;
    const ownerEmail = `owner-${randomUUID().slice(0, 8)}@example.test`;
    const res = await server.request('POST', '/v1/admin/orgs', {
      token,
      headers: { 'x-correlation-id': correlationId },
      body: { name: 'Acme Staff-made', seats: 12, plan: 'pro', ownerEmail },
    });
    assert.equal(res.status, 201, res.text);
    // No SMTP_URL on this server: the owner's invitation link is in the answer (admin-invitations.test.ts has the mail).
    assert.deepEqual(Object.keys(res.body).sort(), ['apiKey', 'orgId', 'ownerInvitationUrl', 'ownerUserId']);
    assert.match(res.body.apiKey.key, /^svc_dev_/);
    const { orgId, ownerUserId } = res.body;

    // The org answers to its own first key, as one the CLI made does.
    const org = await server.request('GET', `/v1/orgs/${orgId}`, { key: res.body.apiKey.key });
    assert.equal(org.status, 200);
    assert.deepEqual(
      [org.body.name, org.body.seats, org.body.plan, org.body.subscriptionStatus, org.body.seatsUsed],
      ['Acme Staff-made', 12, 'pro', 'trialing', 1],
    );
    const owner = await server.request('GET', `/v1/orgs/${orgId}/users/${ownerUserId}`, { token });
    assert.deepEqual([owner.body.email, owner.body.role], [ownerEmail, 'owner']);

    // The org's own audit, read by staff through the org route, names the staff member.
    const trail = (await get(`/v1/orgs/${orgId}/audit`)).body.items;
    const created = trail.find((e: { action: string }) => e.action === 'org.create');
    assert.deepEqual(created.actor, { type: 'staff', id: staffId });
    assert.equal(created.correlationId, correlationId);
    // And the staff audit, across orgs.
    const staffTrail = (await get(`/v1/admin/audit?orgId=${orgId}`)).body.items;
    const mine = staffTrail.filter((e: { actor: { id: string } }) => e.actor.id === staffId);
    assert.deepEqual(mine.map((e: { action: string; correlationId: string; orgId: string }) => [e.action, e.correlationId, e.orgId]).sort(), [
      ['org.create', correlationId, orgId],
      // The starter template the new org gets as its default.
      ['template.create', correlationId, orgId],
      ['user.create', correlationId, orgId],
    ]);
    assert.equal(mine.find((e: { action: string }) => e.action === 'user.create').targetId, ownerUserId);
  });

  test('POST /v1/admin/orgs: defaults as the CLI; bad input is a 400 naming the field and creates nothing', async () => {
    const tag = `Defaults-${randomUUID().slice(0, 6)}`;
    const res = await server.request('POST', '/v1/admin/orgs', { token, body: { name: tag, ownerEmail: `o-${randomUUID().slice(0, 8)}@example.test` } });
    assert.equal(res.status, 201, res.text);
    const org = (await get(`/v1/admin/orgs/${res.body.orgId}`)).body;
    assert.deepEqual([org.seats, org.plan, org.subscriptionStatus], [5, 'trial', 'trialing']);

    const bad = `Refused-${randomUUID().slice(0, 6)}`;
    for (const [body, field] of [
      [{ name: bad, ownerEmail: 'not-an-email' }, 'body.ownerEmail'],
      [{ name: '', ownerEmail: 'a@example.test' }, 'body.name'],
      [{ name: bad, ownerEmail: 'a@example.test', seats: -1 }, 'body.seats'],
      [{ name: bad, ownerEmail: 'a@example.test', seats: 1.5 }, 'body.seats'],
      [{ name: bad }, 'body.ownerEmail'],
      [{ name: bad, ownerEmail: 'a@example.test', orgId: randomUUID() }, 'body'],
    ] as const) {
      const refused = await server.request('POST', '/v1/admin/orgs', { token, body });
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      assert.equal(refused.body.error.code, 'BAD_REQUEST');
      const fields = [refused.body.error.details?.field, ...(refused.body.error.details?.issues ?? []).map((i: { field: string }) => i.field)];
      assert.ok(
        fields.some((f) => String(f).startsWith(field)),
        `${JSON.stringify(body)} names ${JSON.stringify(fields)}`,
      );
    }
    assert.deepEqual((await get(`/v1/admin/orgs?q=${bad}`)).body.items, []);
  });

  test('GET /v1/admin/orgs/{orgId}: billing fields, plan status, seats used and limit; 404 for none', async () => {
    const [o] = await tagged(`Detail-${randomUUID().slice(0, 6)}`, ['One'], { seats: 3 });
    await createUser(server, o!);
    const customer = `cus_detail_${o!.orgId.slice(0, 8)}`;
    await deliver(server, event('customer.subscription.created', subscription(o!.orgId, { customer, quantity: 3, lookupKey: 'team' })));
    const res = await get(`/v1/admin/orgs/${o!.orgId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.providerCustomerId, customer);
    assert.equal(res.body.providerSubscriptionId, 'sub_test');
    assert.equal(res.body.plan, 'team');
    assert.equal(res.body.subscriptionStatus, 'active');
    assert.ok(res.body.billingEventAt);
    assert.deepEqual(res.body.planStatus, { writable: true, blockedBy: null, seats: { limit: 3, used: 2 } });
    const missing = await get(`/v1/admin/orgs/${randomUUID()}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    assert.equal((await get('/v1/admin/orgs/not-a-uuid')).status, 400);
  });

  test('search: q matches part of the name (any case), the whole org id, or the start of the customer id', async () => {
    const tag = `Search-${randomUUID().slice(0, 6)}`;
    const [a, b] = await tagged(tag, ['Alpha Widgets', 'Beta Gadgets']);
    const customer = `cus_find_${randomUUID().slice(0, 10)}`;
    await deliver(server, event('checkout.session.completed', { customer, client_reference_id: b!.orgId }));

    assert.deepEqual(names((await get(`/v1/admin/orgs?q=${encodeURIComponent(`${tag} alpha`.toUpperCase())}`)).body), [`${tag} Alpha Widgets`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?q=${a!.orgId}`)).body), [`${tag} Alpha Widgets`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?q=${a!.orgId.toUpperCase()}`)).body), [`${tag} Alpha Widgets`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?q=${customer}`)).body), [`${tag} Beta Gadgets`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?q=${customer.slice(0, -3)}`)).body), [`${tag} Beta Gadgets`]);
    // LIKE's wildcards are taken literally.
    assert.deepEqual((await get(`/v1/admin/orgs?q=${encodeURIComponent(`${tag}%Widgets`)}`)).body.items, []);
    assert.deepEqual((await get(`/v1/admin/orgs?q=${encodeURIComponent(`${tag}_Alpha`)}`)).body.items, []);
    const found = (await get(`/v1/admin/orgs?q=${customer}`)).body.items[0];
    assert.equal(found.providerCustomerId, customer);
    assert.equal(found.subscriptionStatus, 'active');
  });

  test('filters: status, over the seat limit, in grace, blocked (by the clock)', async () => {
    const tag = `Filter-${randomUUID().slice(0, 6)}`;
    const [late, over, fine] = await tagged(tag, ['Late', 'Over', 'Fine']);
    await deliver(server, event('invoice.payment_failed', { customer: `cus_late_${late!.orgId.slice(0, 8)}`, metadata: { orgId: late!.orgId } }));
    await createUser(server, over!);
    await deliver(server, event('customer.subscription.updated', subscription(over!.orgId, { customer: `cus_over_${over!.orgId.slice(0, 8)}`, quantity: 1 })));
    const q = `q=${tag}&sort=name`;

    assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&status=past_due`)).body), [`${tag} Late`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&status=trialing`)).body), [`${tag} Fine`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&overSeatLimit=true`)).body), [`${tag} Over`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&overSeatLimit=false`)).body), [`${tag} Fine`, `${tag} Late`]);
    assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&inGrace=true`)).body), [`${tag} Late`]);
    assert.deepEqual((await get(`/v1/admin/orgs?${q}&blocked=true`)).body.items, []);
    const over1 = (await get(`/v1/admin/orgs?${q}&overSeatLimit=true`)).body.items[0];
    assert.deepEqual(over1.planStatus, { writable: true, blockedBy: 'seats', seats: { limit: 1, used: 2 } });

    offsetMs = 14 * DAY + 60_000;
    try {
      assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&blocked=true`)).body), [`${tag} Late`]);
      assert.deepEqual(names((await get(`/v1/admin/orgs?${q}&blocked=false`)).body), [`${tag} Fine`, `${tag} Over`]);
      assert.deepEqual((await get(`/v1/admin/orgs?${q}&inGrace=true`)).body.items, []);
      const blocked = (await get(`/v1/admin/orgs?${q}&blocked=true`)).body.items[0];
      assert.equal(blocked.planStatus.writable, false);
      assert.equal(blocked.planStatus.blockedBy, 'grace_expired');
      assert.ok(fine);
    } finally {
      offsetMs = 0;
    }
    for (const bad of ['blocked=yes', 'overSeatLimit=1', 'inGrace=', 'sort=size', 'status=a%00b']) {
      const res = await get(`/v1/admin/orgs?${bad}`);
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.equal(res.body.error.details.field, `query.${bad.split('=')[0]}`, res.text);
    }
  });

  test('sorting and paging: each order walks every match once, in order', async () => {
    const tag = `Page-${randomUUID().slice(0, 6)}`;
    // Names that sort differently by case and by creation.
    const made = ['delta', 'Alpha', 'charlie', 'Echo', 'bravo'];
    await tagged(tag, made);
    const walk = async (sort: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 10; i++) {
        const res = await get(`/v1/admin/orgs?q=${tag}&sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.items.length <= 2);
        seen.push(...names(res.body).map((n) => n.slice(tag.length + 1)));
        cursor = res.body.nextCursor;
        if (!cursor) break;
      }
      return seen;
    };
    assert.deepEqual(await walk('name'), ['Alpha', 'bravo', 'charlie', 'delta', 'Echo']);
    assert.deepEqual(await walk('-name'), ['Echo', 'delta', 'charlie', 'bravo', 'Alpha']);
    assert.deepEqual(await walk('oldest'), made);
    assert.deepEqual(await walk('newest'), [...made].reverse());
    // A name order's cursor is not a newest-first one, and a tampered one is refused.
    const first = await get(`/v1/admin/orgs?q=${tag}&sort=name&limit=2`);
    const tampered = Buffer.from(Buffer.from(first.body.nextCursor, 'base64url').toString().replace(/"\d+"/, '"99999999999999999999"')).toString('base64url');
    for (const cursor of [tampered, Buffer.from('n:["a\\u0000","1"]').toString('base64url'), Buffer.from('n:{}').toString('base64url')]) {
      const res = await get(`/v1/admin/orgs?q=${tag}&sort=name&cursor=${encodeURIComponent(cursor)}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.details.field, 'query.cursor');
    }
    assert.equal((await get(`/v1/admin/orgs?q=${tag}&sort=newest&cursor=${encodeURIComponent(first.body.nextCursor)}`)).status, 400);
  });

  test('payment events: filters by org and type, one event with its payload and error', async () => {
    const [o] = await tagged(`Events-${randomUUID().slice(0, 6)}`, ['One']);
    const customer = `cus_ev_${o!.orgId.slice(0, 8)}`;
    const created = event('customer.subscription.created', subscription(o!.orgId, { customer, quantity: 7 }));
    const failedPay = event('invoice.payment_failed', { customer, metadata: { orgId: o!.orgId } });
    await deliver(server, created);
    await deliver(server, failedPay);
    const all = (await get(`/v1/admin/webhook-events?orgId=${o!.orgId}`)).body.items;
    assert.deepEqual(
      all.map((e: { id: string }) => e.id),
      [failedPay.id, created.id],
      'newest first',
    );
    const byType = (await get(`/v1/admin/webhook-events?orgId=${o!.orgId}&type=invoice.payment_failed`)).body.items;
    assert.deepEqual(
      byType.map((e: { id: string }) => e.id),
      [failedPay.id],
    );

    const one = await get(`/v1/admin/webhook-events/${created.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.status, 'applied');
    assert.deepEqual(JSON.parse(one.body.payload), created);
    assert.equal((await get('/v1/admin/webhook-events/evt_none')).status, 404);
  });

  test('a failed event replayed (one, then all failed, oldest first) changes the org; each replay audited with the staff member', async () => {
    const [a, b] = await tagged(`Replay-${randomUUID().slice(0, 6)}`, ['Holder', 'Waiting']);
    const customer = `cus_rp_${randomUUID().slice(0, 10)}`;
    // Two orgs cannot share a customer: b's checkout fails while a holds it.
    await deliver(server, event('checkout.session.completed', { customer, client_reference_id: a!.orgId }));
    const blocked = event('checkout.session.completed', { customer, client_reference_id: b!.orgId });
    await deliver(server, blocked);
    const stored = (await get(`/v1/admin/webhook-events/${blocked.id}`)).body;
    assert.equal(stored.status, 'failed');
    // A sentence for staff and a stable code, never the database's own text (it is in the log).
    assert.equal(stored.errorCode, 'CUSTOMER_TAKEN');
    assert.match(stored.error, /payment customer that another organisation already has/);
    assert.doesNotMatch(stored.error, /duplicate key|constraint|orgs_provider/);

    // Replay one: still failing, and it says why, in the same words.
    let res = await server.request('POST', `/v1/admin/webhook-events/${blocked.id}/replay`, { token, headers: { 'x-correlation-id': 'corr-replay-one' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result, 'failed');
    assert.equal(res.body.errorCode, 'CUSTOMER_TAKEN');
    assert.equal(res.body.detail, stored.error);
    const again = (await get(`/v1/admin/webhook-events/${blocked.id}`)).body;
    assert.deepEqual([again.error, again.errorCode, again.attempts], [stored.error, 'CUSTOMER_TAKEN', stored.attempts + 1]);

    // a moves to another customer: b's event can now apply. Replay every failed event.
    await deliver(server, event('checkout.session.completed', { customer: `${customer}_new`, client_reference_id: a!.orgId }));
    const failedBefore = (await get('/v1/admin/webhook-events?status=failed&limit=200')).body.items.map((e: { id: string }) => e.id);
    res = await server.request('POST', '/v1/admin/webhook-events/replay', { token, headers: { 'x-correlation-id': 'corr-replay-all' } });
    assert.equal(res.status, 200, res.text);
    const results: { id: string; result: string }[] = res.body.results;
    // Every failed event, each with its result, oldest first (other test files sharing a database
    // may add failed events meanwhile: those may appear too).
    const replayed = results.map((r) => r.id).filter((id) => failedBefore.includes(id));
    assert.deepEqual(replayed, [...failedBefore].reverse());
    assert.equal(results.find((r) => r.id === blocked.id)?.result, 'applied');
    const waiting = (await get(`/v1/admin/orgs/${b!.orgId}`)).body;
    assert.deepEqual([waiting.subscriptionStatus, waiting.providerCustomerId], ['active', customer]);
    assert.equal((await get(`/v1/admin/webhook-events/${blocked.id}`)).body.status, 'applied');

    const trail = (await get(`/v1/admin/audit?action=webhookEvent.replay&actorId=${staffId}`)).body.items.filter(
      (e: { targetId: string }) => e.targetId === blocked.id,
    );
    assert.deepEqual(
      trail.map((e: { correlationId: string; orgId: string | null }) => [e.correlationId, e.orgId]),
      [
        ['corr-replay-all', b!.orgId],
        ['corr-replay-one', null],
      ],
    );
  });

  test("staff read an org's users and audit through the org routes; a customer's ID token cannot use the staff routes", async () => {
    const [o] = await tagged(`Reads-${randomUUID().slice(0, 6)}`, ['One']);
    const users = await get(`/v1/orgs/${o!.orgId}/users`);
    assert.equal(users.status, 200);
    assert.equal(users.body.items.length, 1);
    assert.equal((await get(`/v1/orgs/${o!.orgId}/audit`)).status, 200);
    // The owner of an org, signed in through the customer client: refused everywhere under /v1/admin.
    const owner = await userWithPassword(server, o!, 'owner');
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const ownerToken = (await signIn(app, { username: owner.email, password: owner.password })).tokens.id_token as string;
    for (const path of ['/v1/admin/orgs', `/v1/admin/orgs/${o!.orgId}`, '/v1/admin/audit', '/v1/admin/staff', '/v1/admin/webhook-events']) {
      const res = await server.request('GET', path, { token: ownerToken });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    }
    const create = await server.request('POST', '/v1/admin/orgs', { token: ownerToken, body: { name: 'Sneaky', ownerEmail: 'x@example.test' } });
    assert.equal(create.status, 403);
  });
});
