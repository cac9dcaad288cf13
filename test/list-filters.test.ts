// The users list's search and filters, and the audit's filters
// (action, actor, target, from/to), each with the list's cursor pagination (docs/api.md, "Search and
// filters").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';

describe('list filters', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const emails = async (o: TestOrg, query: string) => {
    const res = await server.request('GET', `/v1/orgs/${o.orgId}/users?${query}`, { key: o.key });
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body.items.map((u: { email: string }) => u.email.split('@')[0]);
  };

  test('users: q matches name or email case-insensitively; role, department, status; all combine; pages', async () => {
    const org = await createOrg(server);
    await createUser(server, org, { email: 'ada@example.test', name: 'Ada Lovelace', department: 'Research', role: 'admin' });
    await createUser(server, org, { email: 'grace@example.test', name: 'Grace Hopper', department: 'research' });
    await createUser(server, org, { email: 'alan@turing.test', name: 'Alan', department: 'Codes' });
    await createUser(server, org, { email: 'percent@example.test', name: '100% Pure_Joy', department: '' });
    const active = await userWithPassword(server, org, 'member');
    const activeUser = (await server.request('GET', `/v1/orgs/${org.orgId}/users/${active.userId}`, { key: org.key })).body;
    await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${active.userId}`, { key: org.key, body: { version: activeUser.version, name: 'Zed' } });
    const activeName = active.email.split('@')[0];

    assert.deepEqual(await emails(org, 'q=LOVE'), ['ada']);
    assert.deepEqual(await emails(org, 'q=turing'), ['alan']);
    assert.deepEqual(await emails(org, 'q=%20hopper%20'), ['grace'], 'trimmed');
    assert.deepEqual(await emails(org, 'q=zed'), [activeName]);
    // LIKE's wildcards match themselves.
    assert.deepEqual(await emails(org, 'q=%25'), ['percent']);
    assert.deepEqual(await emails(org, 'q=_'), ['percent']);
    assert.deepEqual(await emails(org, 'q=zzz'), []);
    assert.equal((await emails(org, 'q=')).length, 6, 'an empty q is no search');

    assert.deepEqual(await emails(org, 'role=admin'), ['ada']);
    assert.equal((await emails(org, 'role=owner')).length, 1);
    assert.deepEqual(await emails(org, 'department=RESEARCH'), ['ada', 'grace']);
    assert.deepEqual(await emails(org, 'department=Research&role=member'), ['grace']);
    assert.deepEqual(await emails(org, 'department=Research&q=ada'), ['ada']);

    // Invited: no password chosen yet; active: has one (the fixture owner has none).
    assert.deepEqual(await emails(org, 'status=active'), [activeName]);
    assert.equal((await emails(org, 'status=invited')).length, 5);

    const first = await server.request('GET', `/v1/orgs/${org.orgId}/users?department=research&limit=1`, { key: org.key });
    assert.equal(first.body.items.length, 1);
    const second = await server.request('GET', `/v1/orgs/${org.orgId}/users?department=research&limit=1&cursor=${first.body.nextCursor}`, { key: org.key });
    assert.deepEqual([first.body.items[0].email, second.body.items[0].email], ['ada@example.test', 'grace@example.test']);
    assert.equal(second.body.nextCursor, null);

    for (const bad of ['role=king', 'status=sleeping', `q=${'x'.repeat(201)}`, 'q=a%00b']) {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/users?${bad}`, { key: org.key });
      assert.equal(res.status, 400, bad);
      assert.match(res.body.error.details.field, /^query\./);
    }
    // Another org's users never match (a word no fixture owner's random hex can hold).
    const other = await createOrg(server);
    assert.deepEqual(await emails(other, 'q=lovelace'), []);
  });

  test('users: sorted by a column, ascending and descending, paged through every page in that order', async () => {
    const org = await createOrg(server, { seats: 20 });
    await createUser(server, org, { email: 'b-zoe@example.test', name: 'zoe', department: 'Sales', role: 'admin' });
    await createUser(server, org, { email: 'c-adam@example.test', name: 'Adam', department: 'research' });
    await createUser(server, org, { email: 'a-noname@example.test', name: '', department: 'Ops' });
    await createUser(server, org, { email: 'd-mia@example.test', name: 'Mia', department: 'Research', role: 'admin' });
    await createUser(server, org, { email: 'e-adam@example.test', name: 'adam', department: 'Sales' });
    const all = async (sort: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await server.request('GET', `/v1/orgs/${org.orgId}/users?sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
        assert.equal(res.status, 200, `${sort}: ${res.text}`);
        seen.push(...res.body.items.map((u: { email: string }) => u.email.split('@')[0]));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen.filter((e) => !e.startsWith('owner'));
    };
    // By the name as shown (the email without one), case-insensitive; equal names in creation order.
    assert.deepEqual(await all('name'), ['a-noname', 'c-adam', 'e-adam', 'd-mia', 'b-zoe']);
    assert.deepEqual(await all('-name'), ['b-zoe', 'd-mia', 'e-adam', 'c-adam', 'a-noname']);
    // Roles from the most powerful down (the owner first, then the admins in creation order).
    assert.deepEqual(await all('role'), ['b-zoe', 'd-mia', 'c-adam', 'a-noname', 'e-adam']);
    assert.deepEqual(await all('department'), ['a-noname', 'c-adam', 'd-mia', 'b-zoe', 'e-adam']);
    assert.deepEqual(await all('created'), ['b-zoe', 'c-adam', 'a-noname', 'd-mia', 'e-adam']);
    // Sorting combines with the filters.
    assert.deepEqual(await emails(org, 'sort=-name&department=research'), ['d-mia', 'c-adam']);

    // A cursor belongs to its order: one of another order, or made up, is a 400 naming the cursor.
    const byName = await server.request('GET', `/v1/orgs/${org.orgId}/users?sort=name&limit=1`, { key: org.key });
    const byCreation = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=1`, { key: org.key });
    for (const bad of [`cursor=${byName.body.nextCursor}`, `sort=name&cursor=${byCreation.body.nextCursor}`, 'sort=name&cursor=not-a-cursor', 'sort=email']) {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/users?${bad}`, { key: org.key });
      assert.equal(res.status, 400, bad);
      assert.match(res.body.error.details.field, /^query\./);
    }
  });

  test('audit: actorId, from/to (from inclusive, to exclusive), with action and target; pages', async () => {
    const org = await createOrg(server);
    const u1 = await createUser(server, org, { email: 'one@example.test' });
    const mid = new Date();
    await new Promise((r) => setTimeout(r, 20));
    const u2 = await createUser(server, org, { email: 'two@example.test' });
    const list = async (query: string) => {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/audit?${query}`, { key: org.key });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as { items: { action: string; targetId: string; actor: { id: string }; at: string; correlationId: string }[]; nextCursor: string | null };
    };
    const all = (await list('limit=200')).items;
    const keyActor = all.find((e) => e.targetId === u1.userId)!.actor.id;
    assert.equal(keyActor, org.keyId, 'API-key writes name the key');
    assert.deepEqual(
      (await list(`actorId=${keyActor}`)).items.map((e) => e.targetId),
      [u2.userId, u1.userId],
    );
    assert.deepEqual((await list(`actorId=someone-else`)).items, []);
    assert.deepEqual(
      (await list(`from=${encodeURIComponent(mid.toISOString())}&action=user.create`)).items.map((e) => e.targetId),
      [u2.userId],
    );
    const to = await list(`to=${encodeURIComponent(mid.toISOString())}&action=user.create`);
    // (The org's creation made its owner, before u1.)
    assert.deepEqual(
      to.items.map((e) => e.targetId),
      [u1.userId, org.ownerUserId],
    );
    const at = all.find((e) => e.targetId === u2.userId)!.at;
    assert.deepEqual(
      (await list(`from=${encodeURIComponent(at)}&to=${encodeURIComponent(new Date(Date.parse(at) + 1).toISOString())}`)).items.map((e) => e.targetId),
      [u2.userId],
    );
    assert.deepEqual((await list(`to=${encodeURIComponent(at)}&targetId=${u2.userId}`)).items, [], 'to is exclusive');
    assert.equal((await list('from=2000-01-01&to=2999-12-31')).items.length, all.length);
    assert.deepEqual((await list('to=2000-01-01')).items, []);
    assert.equal((await list(`from=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`)).items.length, all.length);

    const page1 = await list(`actorId=${keyActor}&limit=1`);
    const page2 = await list(`actorId=${keyActor}&limit=1&cursor=${page1.nextCursor}`);
    assert.deepEqual([page1.items[0]!.targetId, page2.items[0]!.targetId], [u2.userId, u1.userId]);

    for (const bad of [
      'from=yesterday',
      'to=2026-02-30',
      'from=2026-01-02&to=2026-01-01',
      'from=2026-01-01T00:00:00',
      'actorId=a%00b',
      `actorId=${'x'.repeat(101)}`,
    ]) {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/audit?${bad}`, { key: org.key });
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.match(res.body.error.details.field, /^query\./, bad);
    }
  });
});
