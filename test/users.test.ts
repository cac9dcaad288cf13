import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userInput, type TestOrg } from './helpers/fixtures.ts';
import { api, ok, refused, type ApiClient } from './helpers/api.ts';

// API calls go through the generated client; requests malformed on purpose (a missing or
// out-of-range field, an unknown one, bad query values) stay raw.
describe('orgs and users', () => {
  let server: TestServer;
  let org: TestOrg;
  let client: ApiClient;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 100 });
    client = api(server, org);
  });
  after(() => server.close());
  const base = () => `/v1/orgs/${org.orgId}`;
  const orgPath = (o: TestOrg = org) => ({ params: { path: { orgId: o.orgId } } });
  const userPath = (userId: string, o: TestOrg = org) => ({ params: { path: { orgId: o.orgId, userId } } });

  test("GET org: the org resource's fields, an ETag, a trialing org", async () => {
    const res = await client.GET('/v1/orgs/{orgId}', orgPath());
    const body = ok(res, 200);
    assert.deepEqual(Object.keys(body).sort(), [
      'address',
      'clickTracking',
      'createdAt',
      'currentPeriodEnd',
      'fields',
      'gracePeriodEndsAt',
      'logoImageId',
      'name',
      'orgId',
      'overSeatLimit',
      'plan',
      'priceVersion',
      'seats',
      'seatsUsed',
      'selfServiceFields',
      'social',
      'subscriptionStatus',
      'updatedAt',
      'version',
      'website',
    ]);
    assert.equal(body.subscriptionStatus, 'trialing');
    assert.equal(body.plan, 'trial');
    assert.equal(body.seatsUsed, 1);
    assert.equal(res.response.headers.get('etag'), `"${body.version}"`);
  });

  test('GET org after changes: name, version, ETag and seat count are fresh, never a kept copy', async () => {
    const o = await createOrg(server);
    const c = api(server, o);
    const first = ok(await c.GET('/v1/orgs/{orgId}', orgPath(o)));
    assert.deepEqual(ok(await c.GET('/v1/orgs/{orgId}', orgPath(o))), first, 'the same answer while nothing changes');
    ok(await c.PATCH('/v1/orgs/{orgId}', { ...orgPath(o), body: { version: first.version, name: 'Renamed Ltd' } }));
    await createUser(server, o);
    const after = await c.GET('/v1/orgs/{orgId}', orgPath(o));
    const body = ok(after);
    assert.equal(body.name, 'Renamed Ltd');
    assert.equal(body.version, first.version + 1);
    assert.equal(body.seatsUsed, first.seatsUsed + 1);
    assert.equal(after.response.headers.get('etag'), `"${first.version + 1}"`);
  });

  test('PATCH org: needs version; stale version 409; stale If-Match 412; success bumps version and audits', async () => {
    const current = ok(await client.GET('/v1/orgs/{orgId}', orgPath()));
    // Malformed on purpose: no version.
    const missing = await server.request('PATCH', base(), { key: org.key, body: { name: 'New' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.details.field, 'body.version');
    const stale = refused(await client.PATCH('/v1/orgs/{orgId}', { ...orgPath(), body: { version: current.version + 5, name: 'New' } }), 409);
    assert.equal(stale.error.code, 'CONFLICT');
    const staleEtag = await client.PATCH('/v1/orgs/{orgId}', {
      params: { path: { orgId: org.orgId }, header: { 'If-Match': `"${current.version + 7}"` } },
      body: { version: current.version, name: 'New' },
    });
    assert.equal(refused(staleEtag, 412).error.code, 'PRECONDITION_FAILED');
    // An If-Match naming none of our versions (not a number, or past PostgreSQL's integers) is 412;
    // a version past them is a 400 of validation; neither is a server error.
    for (const ifMatch of ['"abc"', 'garbage', '"99999999999"']) {
      const res = await client.PATCH('/v1/orgs/{orgId}', {
        params: { path: { orgId: org.orgId }, header: { 'If-Match': ifMatch } },
        body: { version: current.version, name: 'New' },
      });
      assert.equal(refused(res, 412).error.code, 'PRECONDITION_FAILED', ifMatch);
    }
    const hugeVersion = await server.request('PATCH', base(), { key: org.key, body: { version: 99_999_999_999, name: 'New' } });
    assert.equal(hugeVersion.status, 400);
    assert.equal(hugeVersion.body.error.details.field, 'body.version');
    const unknownField = await server.request('PATCH', base(), { key: org.key, body: { version: current.version, seats: 999 } });
    assert.equal(unknownField.status, 400, 'billing fields are not patchable');
    const unchanged = ok(await client.GET('/v1/orgs/{orgId}', orgPath()));
    assert.equal(unchanged.version, current.version, 'refused requests changed nothing');
    const patched = ok(
      await client.PATCH('/v1/orgs/{orgId}', {
        params: { path: { orgId: org.orgId }, header: { 'If-Match': `"${current.version}"`, 'X-Correlation-Id': 'patch-org-1' } },
        body: { version: current.version, name: 'Renamed Ltd' },
      }),
      200,
    );
    assert.equal(patched.name, 'Renamed Ltd');
    assert.equal(patched.version, current.version + 1);
    const audit = ok(await client.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: org.orgId }, query: { action: 'org.update' } } }));
    assert.equal(audit.items[0]?.correlationId, 'patch-org-1');
    assert.deepEqual(audit.items[0]?.changes, ['name']);
    assert.deepEqual(audit.items[0]?.actor, { type: 'apiKey', id: org.keyId });
  });

  test('create, read, list and update a user', async () => {
    const created = ok(
      await client.POST('/v1/orgs/{orgId}/users', {
        ...orgPath(),
        body: userInput({ email: `Grace-${randomUUID().slice(0, 8)}@Example.test`, name: 'Grace Hopper', department: 'Navy' }),
      }),
      201,
    );
    assert.equal(created.role, 'member');
    assert.equal(created.version, 1);
    assert.equal(created.mfaEnabled, false);
    const read = await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(created.userId));
    assert.deepEqual(ok(read), created);
    assert.equal(read.response.headers.get('etag'), '"1"');
    const patched = ok(
      await client.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(created.userId), body: { version: 1, title: 'Rear Admiral', role: 'admin' } }),
      200,
    );
    assert.equal(patched.title, 'Rear Admiral');
    assert.equal(patched.role, 'admin');
    assert.equal(patched.version, 2);
  });

  test('an API key acts as admin: it cannot make an owner, nor change the owner', async () => {
    const owner = refused(await client.POST('/v1/orgs/{orgId}/users', { ...orgPath(), body: userInput({ role: 'owner' }) }), 403);
    assert.equal(owner.error.details?.field, 'role');
    const current = ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(org.ownerUserId)));
    refused(await client.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(org.ownerUserId), body: { version: current.version, role: 'member' } }), 403);
    refused(await client.DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(org.ownerUserId)), 403);
    assert.equal(ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(org.ownerUserId))).role, 'owner');
  });

  test('validation: bad email, unknown role, unknown field, malformed id → 400 naming the field', async () => {
    // Malformed on purpose: raw requests.
    const cases: [unknown, string][] = [
      [{ email: 'not-an-email' }, 'body.email'],
      [{ email: 'x@example.test', role: 'emperor' }, 'body.role'],
      [{ email: 'x@example.test', shoeSize: 9 }, 'body.shoeSize'],
      [{}, 'body.email'],
    ];
    for (const [body, field] of cases) {
      const res = await server.request('POST', `${base()}/users`, { key: org.key, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.equal(res.body.error.details.field, field, JSON.stringify(res.body));
    }
    const badId = await server.request('GET', `${base()}/users/not-a-uuid`, { key: org.key });
    assert.equal(badId.status, 400);
    assert.equal(badId.body.error.details.field, 'params.userId');
  });

  test('a live address is unique across the stage (409 with details.field), case-insensitively; a deleted user frees it', async () => {
    const dupAddress = `dup-${randomUUID().slice(0, 8)}@example.test`;
    const first = await createUser(server, org, { email: dupAddress });
    const dup = refused(await client.POST('/v1/orgs/{orgId}/users', { ...orgPath(), body: userInput({ email: dupAddress.toUpperCase() }) }), 409);
    assert.equal(dup.error.details?.field, 'email');
    // Another org may not use it either: one account signs in to one org.
    const other = await createOrg(server);
    const elsewhere = refused(await api(server, other).POST('/v1/orgs/{orgId}/users', { ...orgPath(other), body: userInput({ email: dupAddress }) }), 409);
    assert.equal(elsewhere.error.code, 'CONFLICT');
    assert.equal(elsewhere.error.details?.field, 'email');
    // After soft deletion the email is free again, in any org.
    assert.equal((await client.DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(first.userId))).response.status, 204);
    ok(await api(server, other).POST('/v1/orgs/{orgId}/users', { ...orgPath(other), body: userInput({ email: dupAddress }) }), 201);
    // Changing an email onto a taken one is 409 too, from this org or another.
    const someone = await createUser(server, org);
    const clash = refused(await client.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(someone.userId), body: { version: 1, email: dupAddress } }), 409);
    assert.equal(clash.error.details?.field, 'email');
    assert.equal(ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(someone.userId))).email, someone.email, 'nothing changed');
  });

  test('a soft-deleted user is 404 everywhere and never listed', async () => {
    const user = await createUser(server, org);
    assert.equal((await client.DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId))).response.status, 204);
    refused(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId)), 404);
    refused(await client.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(user.userId), body: { version: 2, name: 'x' } }), 404);
    refused(await client.DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId)), 404);
    const all = await listAll(org);
    assert.ok(!all.some((u) => u.userId === user.userId));
  });

  test('two PATCHes with the same version at once: exactly one 200, one 409', async () => {
    const user = await createUser(server, org);
    for (let round = 0; round < 3; round++) {
      const { version } = ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId)));
      const results = await Promise.all(
        ['A', 'B'].map((name) => client.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(user.userId), body: { version, name: `${name}${round}` } })),
      );
      assert.deepEqual(results.map((r) => r.response.status).sort(), [200, 409]);
      const after = ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId)));
      assert.equal(after.version, version + 1);
      assert.equal(after.name, results.find((r) => r.response.status === 200)?.data?.name);
    }
  });

  test('pagination: limit, cursor, no repeats or gaps while users are added', async () => {
    const fresh = await createOrg(server);
    const c = api(server, fresh);
    const made = [];
    for (let i = 0; i < 7; i++) made.push((await createUser(server, fresh)).userId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok(await c.GET('/v1/orgs/{orgId}/users', { params: { path: { orgId: fresh.orgId }, query: { limit: 3, cursor } } }), 200);
      assert.ok(page.items.length <= 3);
      seen.push(...page.items.map((u) => u.userId));
      cursor = page.nextCursor ?? undefined;
      if (pages === 0) made.push((await createUser(server, fresh)).userId); // inserted mid-listing
      pages++;
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length, 'no user twice');
    for (const id of [fresh.ownerUserId, ...made]) assert.ok(seen.includes(id), 'every user once');
    // Malformed on purpose: raw query strings.
    for (const bad of ['limit=0', 'limit=201', 'limit=abc', 'cursor=garbage!']) {
      const res = await server.request('GET', `/v1/orgs/${fresh.orgId}/users?${bad}`, { key: fresh.key });
      assert.equal(res.status, 400, bad);
    }
  });

  test('the audit trail: every write, newest first, filterable, paginated', async () => {
    const fresh = await createOrg(server);
    const c = api(server, fresh);
    const user = await createUser(server, fresh);
    ok(
      await c.PATCH('/v1/orgs/{orgId}/users/{userId}', {
        params: { path: { orgId: fresh.orgId, userId: user.userId }, header: { 'X-Correlation-Id': 'corr-audit' } },
        body: { version: 1, phone: '+44 20 7946 0000' },
      }),
    );
    ok(await c.DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(user.userId, fresh)), 204);
    const forUser = ok(await c.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: fresh.orgId }, query: { targetId: user.userId } } }));
    assert.deepEqual(
      forUser.items.map((e) => e.action),
      ['user.delete', 'user.update', 'user.create'],
    );
    const update = forUser.items[1];
    assert.equal(update?.correlationId, 'corr-audit');
    assert.deepEqual(update?.changes, ['phone']);
    assert.ok(!JSON.stringify(forUser).includes('7946'), 'values are never in the audit trail');
    const page1 = ok(await c.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: fresh.orgId }, query: { limit: 2 } } }));
    assert.equal(page1.items.length, 2);
    const page2 = ok(
      await c.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: fresh.orgId }, query: { limit: 2, cursor: page1.nextCursor ?? undefined } } }),
    );
    assert.ok(page2.items.length >= 1);
    assert.ok(new Date(page2.items[0]!.at) <= new Date(page1.items[1]!.at));
  });

  async function listAll(o: TestOrg): Promise<{ userId: string }[]> {
    const out = [];
    let cursor: string | undefined;
    do {
      const page = ok(await api(server, o).GET('/v1/orgs/{orgId}/users', { params: { path: { orgId: o.orgId }, query: { limit: 200, cursor } } }));
      out.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return out;
  }
});
