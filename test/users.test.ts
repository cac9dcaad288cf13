import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userInput, type TestOrg } from './helpers/fixtures.ts';

describe('orgs and users', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 100 });
  });
  after(() => server.close());
  const base = () => `/v1/orgs/${org.orgId}`;

  test('GET org: the fields of DECISIONS, an ETag, a trialing org', async () => {
    const res = await server.request('GET', base(), { key: org.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'createdAt', 'currentPeriodEnd', 'gracePeriodEndsAt', 'name', 'orgId', 'overSeatLimit', 'plan', 'priceVersion',
      'seats', 'seatsUsed', 'subscriptionStatus', 'updatedAt', 'version',
    ]);
    assert.equal(res.body.subscriptionStatus, 'trialing');
    assert.equal(res.body.plan, 'trial');
    assert.equal(res.body.seatsUsed, 1);
    assert.equal(res.headers.get('etag'), `"${res.body.version}"`);
  });

  test('GET org after changes: name, version, ETag and seat count are fresh, never a kept copy', async () => {
    const o = await createOrg(server);
    const url = `/v1/orgs/${o.orgId}`;
    const first = (await server.request('GET', url, { key: o.key })).body;
    assert.deepEqual((await server.request('GET', url, { key: o.key })).body, first, 'the same answer while nothing changes');
    await server.request('PATCH', url, { key: o.key, body: { version: first.version, name: 'Renamed Ltd' } });
    await createUser(server, o);
    const after = await server.request('GET', url, { key: o.key });
    assert.equal(after.body.name, 'Renamed Ltd');
    assert.equal(after.body.version, first.version + 1);
    assert.equal(after.body.seatsUsed, first.seatsUsed + 1);
    assert.equal(after.headers.get('etag'), `"${first.version + 1}"`);
  });

  test('PATCH org: needs version; stale version 409; stale If-Match 412; success bumps version and audits', async () => {
    const current = (await server.request('GET', base(), { key: org.key })).body;
    const missing = await server.request('PATCH', base(), { key: org.key, body: { name: 'New' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.details.field, 'body.version');
    const stale = await server.request('PATCH', base(), { key: org.key, body: { version: current.version + 5, name: 'New' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error.code, 'CONFLICT');
    const staleEtag = await server.request('PATCH', base(), {
      key: org.key,
      body: { version: current.version, name: 'New' },
      headers: { 'if-match': `"${current.version + 7}"` },
    });
    assert.equal(staleEtag.status, 412);
    assert.equal(staleEtag.body.error.code, 'PRECONDITION_FAILED');
    // An If-Match naming none of our versions (not a number, or past PostgreSQL's integers) is 412;
    // a version past them is a 400 of validation; neither is a server error.
    for (const ifMatch of ['"abc"', 'garbage', '"99999999999"']) {
      const res = await server.request('PATCH', base(), { key: org.key, body: { version: current.version, name: 'New' }, headers: { 'if-match': ifMatch } });
      assert.equal(res.status, 412, ifMatch);
      assert.equal(res.body.error.code, 'PRECONDITION_FAILED');
    }
    const hugeVersion = await server.request('PATCH', base(), { key: org.key, body: { version: 99_999_999_999, name: 'New' } });
    assert.equal(hugeVersion.status, 400);
    assert.equal(hugeVersion.body.error.details.field, 'body.version');
    const unknownField = await server.request('PATCH', base(), { key: org.key, body: { version: current.version, seats: 999 } });
    assert.equal(unknownField.status, 400, 'billing fields are not patchable');
    const unchanged = (await server.request('GET', base(), { key: org.key })).body;
    assert.equal(unchanged.version, current.version, 'refused requests changed nothing');
    const ok = await server.request('PATCH', base(), {
      key: org.key,
      body: { version: current.version, name: 'Renamed Ltd' },
      headers: { 'if-match': `"${current.version}"`, 'x-correlation-id': 'patch-org-1' },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.name, 'Renamed Ltd');
    assert.equal(ok.body.version, current.version + 1);
    const audit = await server.request('GET', `${base()}/audit?action=org.update`, { key: org.key });
    assert.equal(audit.body.items[0].correlationId, 'patch-org-1');
    assert.deepEqual(audit.body.items[0].changes, ['name']);
    assert.deepEqual(audit.body.items[0].actor, { type: 'apiKey', id: org.keyId });
  });

  test('create, read, list and update a user', async () => {
    const created = await server.request('POST', `${base()}/users`, {
      key: org.key,
      body: userInput({ email: 'Grace@Example.test', name: 'Grace Hopper', department: 'Navy' }),
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.role, 'member');
    assert.equal(created.body.version, 1);
    assert.equal(created.body.mfaEnabled, false);
    const read = await server.request('GET', `${base()}/users/${created.body.userId}`, { key: org.key });
    assert.deepEqual(read.body, created.body);
    assert.equal(read.headers.get('etag'), '"1"');
    const patched = await server.request('PATCH', `${base()}/users/${created.body.userId}`, {
      key: org.key,
      body: { version: 1, title: 'Rear Admiral', role: 'admin' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.title, 'Rear Admiral');
    assert.equal(patched.body.role, 'admin');
    assert.equal(patched.body.version, 2);
  });

  test('an API key acts as admin: it cannot make an owner, nor change the owner', async () => {
    const owner = await server.request('POST', `${base()}/users`, { key: org.key, body: userInput({ role: 'owner' }) });
    assert.equal(owner.status, 403);
    assert.equal(owner.body.error.details.field, 'role');
    const current = (await server.request('GET', `${base()}/users/${org.ownerUserId}`, { key: org.key })).body;
    const demote = await server.request('PATCH', `${base()}/users/${org.ownerUserId}`, { key: org.key, body: { version: current.version, role: 'member' } });
    assert.equal(demote.status, 403);
    assert.equal((await server.request('DELETE', `${base()}/users/${org.ownerUserId}`, { key: org.key })).status, 403);
    assert.equal((await server.request('GET', `${base()}/users/${org.ownerUserId}`, { key: org.key })).body.role, 'owner');
  });

  test('validation: bad email, unknown role, unknown field, malformed id → 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ email: 'not-an-email' }, 'body.email'],
      [{ email: 'x@example.test', role: 'emperor' }, 'body.role'],
      [{ email: 'x@example.test', shoeSize: 9 }, 'body'],
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

  test('emails are unique per org among live users (409 with details.field), case-insensitively', async () => {
    const first = await createUser(server, org, { email: 'dup@example.test' });
    const dup = await server.request('POST', `${base()}/users`, { key: org.key, body: userInput({ email: 'DUP@example.test' }) });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.details.field, 'email');
    // Another org may use the same email.
    const other = await createOrg(server);
    assert.equal((await server.request('POST', `/v1/orgs/${other.orgId}/users`, { key: other.key, body: userInput({ email: 'dup@example.test' }) })).status, 201);
    // After soft deletion the email is free again.
    assert.equal((await server.request('DELETE', `${base()}/users/${first.userId}`, { key: org.key })).status, 204);
    const again = await server.request('POST', `${base()}/users`, { key: org.key, body: userInput({ email: 'dup@example.test' }) });
    assert.equal(again.status, 201);
    // Changing an email onto a taken one is 409 too.
    const someone = await createUser(server, org);
    const clash = await server.request('PATCH', `${base()}/users/${someone.userId}`, { key: org.key, body: { version: 1, email: 'dup@example.test' } });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error.details.field, 'email');
  });

  test('a soft-deleted user is 404 everywhere and never listed', async () => {
    const user = await createUser(server, org);
    const path = `${base()}/users/${user.userId}`;
    assert.equal((await server.request('DELETE', path, { key: org.key })).status, 204);
    assert.equal((await server.request('GET', path, { key: org.key })).status, 404);
    assert.equal((await server.request('PATCH', path, { key: org.key, body: { version: 2, name: 'x' } })).status, 404);
    assert.equal((await server.request('DELETE', path, { key: org.key })).status, 404);
    const all = await listAll(`${base()}/users`);
    assert.ok(!all.some((u) => u.userId === user.userId));
  });

  test('two PATCHes with the same version at once: exactly one 200, one 409', async () => {
    const user = await createUser(server, org);
    const path = `${base()}/users/${user.userId}`;
    for (let round = 0; round < 3; round++) {
      const version = (await server.request('GET', path, { key: org.key })).body.version;
      const results = await Promise.all(
        ['A', 'B'].map((name) => server.request('PATCH', path, { key: org.key, body: { version, name: `${name}${round}` } })),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
      const after = (await server.request('GET', path, { key: org.key })).body;
      assert.equal(after.version, version + 1);
      assert.equal(after.name, results.find((r) => r.status === 200)?.body.name);
    }
  });

  test('pagination: limit, cursor, no repeats or gaps while users are added', async () => {
    const fresh = await createOrg(server);
    const made = [];
    for (let i = 0; i < 7; i++) made.push((await createUser(server, fresh)).userId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await server.request('GET', `/v1/orgs/${fresh.orgId}/users?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key: fresh.key });
      assert.equal(res.status, 200);
      assert.ok(res.body.items.length <= 3);
      seen.push(...res.body.items.map((u: { userId: string }) => u.userId));
      cursor = res.body.nextCursor;
      if (pages === 0) made.push((await createUser(server, fresh)).userId); // inserted mid-listing
      pages++;
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length, 'no user twice');
    for (const id of [fresh.ownerUserId, ...made]) assert.ok(seen.includes(id), 'every user once');
    for (const bad of ['limit=0', 'limit=201', 'limit=abc', 'cursor=garbage!']) {
      const res = await server.request('GET', `/v1/orgs/${fresh.orgId}/users?${bad}`, { key: fresh.key });
      assert.equal(res.status, 400, bad);
    }
  });

  test('the audit trail: every write, newest first, filterable, paginated', async () => {
    const fresh = await createOrg(server);
    const user = await createUser(server, fresh);
    await server.request('PATCH', `/v1/orgs/${fresh.orgId}/users/${user.userId}`, {
      key: fresh.key,
      body: { version: 1, phone: '+44 20 7946 0000' },
      headers: { 'x-correlation-id': 'corr-audit' },
    });
    await server.request('DELETE', `/v1/orgs/${fresh.orgId}/users/${user.userId}`, { key: fresh.key });
    const forUser = await server.request('GET', `/v1/orgs/${fresh.orgId}/audit?targetId=${user.userId}`, { key: fresh.key });
    assert.deepEqual(forUser.body.items.map((e: { action: string }) => e.action), ['user.delete', 'user.update', 'user.create']);
    const update = forUser.body.items[1];
    assert.equal(update.correlationId, 'corr-audit');
    assert.deepEqual(update.changes, ['phone']);
    assert.ok(!JSON.stringify(forUser.body).includes('7946'), 'values are never in the audit trail');
    const page1 = await server.request('GET', `/v1/orgs/${fresh.orgId}/audit?limit=2`, { key: fresh.key });
    assert.equal(page1.body.items.length, 2);
    const page2 = await server.request('GET', `/v1/orgs/${fresh.orgId}/audit?limit=2&cursor=${page1.body.nextCursor}`, { key: fresh.key });
    assert.ok(page2.body.items.length >= 1);
    assert.ok(new Date(page2.body.items[0].at) <= new Date(page1.body.items[1].at));
  });

  async function listAll(path: string): Promise<{ userId: string }[]> {
    const out = [];
    let cursor: string | null = null;
    do {
      const res = await server.request('GET', `${path}?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
      out.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    return out;
  }
});
