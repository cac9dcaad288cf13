// GET /v1/orgs/{orgId}/deployments: per-user deployment state, filtered and paginated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';
import { assertSecurityCases } from './helpers/security.ts';

describe('deployments', () => {
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  const userIds: string[] = [];
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 50 });
    other = await createOrg(server);
    for (let i = 0; i < 5; i++) userIds.push((await createUser(server, org)).userId);
    const d = server.deps.deployments;
    const at = new Date('2026-11-23T00:00:00Z');
    await d.record({ orgId: org.orgId, userId: userIds[0]!, target: 'gmail', state: 'deployed', deployed: { contentHash: 'h0', at } });
    await d.record({ orgId: org.orgId, userId: userIds[1]!, target: 'gmail', state: 'failed', error: 'Mail service not enabled' });
    await d.record({ orgId: org.orgId, userId: userIds[2]!, target: 'gmail', state: 'skipped', reason: 'too_long' });
    await d.record({ orgId: org.orgId, userId: userIds[3]!, target: 'gmail', state: 'pending' });
    await d.record({ orgId: org.orgId, userId: userIds[0]!, target: 'outlook', state: 'deployed', deployed: { contentHash: 'o0', at } });
    // A deployment of another org's user is never listed here.
    const stranger = await createUser(server, other);
    await d.record({ orgId: other.orgId, userId: stranger.userId, target: 'gmail', state: 'deployed', deployed: { contentHash: 'x', at } });
  });
  after(() => server.close());
  const list = (query = '', key = org.key) => server.request('GET', `/v1/orgs/${org.orgId}/deployments${query}`, { key });

  test('lists every deployment of the org with its fields', async () => {
    const res = await list();
    assert.equal(res.status, 200);
    assert.equal(res.body.items.length, 5);
    assert.equal(res.body.nextCursor, null);
    const first = res.body.items.find((i: { userId: string; target: string }) => i.userId === userIds[0] && i.target === 'gmail');
    assert.deepEqual(Object.keys(first).sort(), ['deployedAt', 'email', 'error', 'reason', 'state', 'target', 'updatedAt', 'userId']);
    assert.equal(first.state, 'deployed');
    assert.equal(first.deployedAt, '2026-11-23T00:00:00.000Z');
    const failed = res.body.items.find((i: { userId: string }) => i.userId === userIds[1]);
    assert.equal(failed.error, 'Mail service not enabled');
  });

  test('filters by userId, target and state', async () => {
    assert.equal((await list(`?userId=${userIds[0]}`)).body.items.length, 2);
    assert.equal((await list('?target=outlook')).body.items.length, 1);
    const skipped = await list('?target=gmail&state=skipped');
    assert.deepEqual(
      skipped.body.items.map((i: { reason: string }) => i.reason),
      ['too_long'],
    );
    assert.equal((await list(`?userId=${userIds[4]}`)).body.items.length, 0);
  });

  test('paginates without repeating or skipping, and a redeploy keeps its place', async () => {
    await server.deps.deployments.record({
      orgId: org.orgId,
      userId: userIds[3]!,
      target: 'gmail',
      state: 'deployed',
      deployed: { contentHash: 'h3', at: new Date() },
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { items: { userId: string; target: string }[]; nextCursor: string | null } } = await list(
        `?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.ok(res.body.items.length <= 2);
      seen.push(...res.body.items.map((i) => `${i.userId}:${i.target}`));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5);
  });

  test('a deleted user leaves the list', async () => {
    const u = await createUser(server, org);
    await server.deps.deployments.record({ orgId: org.orgId, userId: u.userId, target: 'gmail', state: 'pending' });
    assert.equal((await list(`?userId=${u.userId}`)).body.items.length, 1);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${u.userId}`, { key: org.key })).status, 204);
    assert.equal((await list(`?userId=${u.userId}`)).body.items.length, 0);
  });

  test('bad filters and cursors are a 400 in the envelope', async () => {
    for (const q of ['?state=done', '?target=yahoo', '?userId=nope', '?limit=0', '?cursor=zzz']) {
      const res = await list(q);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
  });

  // A member's 403 is in tenancy-security.test.ts's role table (ORG_ROUTES).
  test('security: refused credentials 401, another org 403', async () => {
    await assertSecurityCases(server, [{ method: 'GET', route: '/v1/orgs/{orgId}/deployments', minRole: 'admin' }], org, other);
  });
});
