import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { hashKey } from '../src/api-keys/key-format.ts';

describe('API keys', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer({ STAGE: 'test' });
    org = await createOrg(server);
  });
  after(() => server.close());
  const keys = () => `/v1/orgs/${org.orgId}/api-keys`;

  test('minting: svc_<stage>_<43 base64url chars>, shown once, stored only as a hash', async () => {
    const res = await server.request('POST', keys(), { key: org.key, body: { name: 'CI' } });
    assert.equal(res.status, 201);
    assert.match(res.body.key, /^svc_test_[A-Za-z0-9_-]{43}$/);
    assert.ok(res.body.key.startsWith(res.body.prefix));
    assert.equal(res.body.lastUsedAt, null);
    const list = await server.request('GET', keys(), { key: org.key });
    const listed = list.body.items.find((k: { keyId: string }) => k.keyId === res.body.keyId);
    assert.equal(listed.name, 'CI');
    assert.equal(listed.key, undefined, 'the secret is never listed');
    const row = await server.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', res.body.keyId).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, hashKey(res.body.key));
    assert.ok(!JSON.stringify(row).includes(res.body.key.slice(9)), 'the database holds no secret');
    const again = await server.request('POST', keys(), { key: org.key, body: { name: 'CI' } });
    assert.notEqual(again.body.key, res.body.key);
  });

  test('a key works as Bearer and as X-Api-Key', async () => {
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { headers: { authorization: `Bearer ${org.key}` } })).status, 200);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { headers: { 'x-api-key': org.key } })).status, 200);
  });

  test('lastUsedAt is written within a second of the first use', async () => {
    const minted = (await server.request('POST', keys(), { key: org.key, body: { name: 'fresh' } })).body;
    const before = Date.now();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: minted.key })).status, 200);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 20 && !lastUsedAt; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const list = await server.request('GET', `${keys()}?limit=200`, { key: org.key });
      lastUsedAt = list.body.items.find((k: { keyId: string }) => k.keyId === minted.keyId).lastUsedAt;
    }
    assert.ok(lastUsedAt, 'lastUsedAt was recorded');
    assert.ok(new Date(lastUsedAt).getTime() >= before - 1000);
  });

  test('revocation: immediate on this instance, idempotent, audited, 404 for unknown keys', async () => {
    const minted = (await server.request('POST', keys(), { key: org.key, body: { name: 'doomed' } })).body;
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: minted.key })).status, 200);
    const revoked = await server.request('DELETE', `${keys()}/${minted.keyId}`, { key: org.key });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.keyId, minted.keyId);
    assert.equal(revoked.body.revoked, true);
    assert.ok(revoked.body.revokedAt);
    const refused = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: minted.key });
    assert.equal(refused.status, 401);
    const twice = await server.request('DELETE', `${keys()}/${minted.keyId}`, { key: org.key });
    assert.equal(twice.status, 200);
    assert.equal(twice.body.revokedAt, revoked.body.revokedAt);
    assert.equal((await server.request('DELETE', `${keys()}/${crypto.randomUUID()}`, { key: org.key })).status, 404);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=apiKey.revoke&targetId=${minted.keyId}`, { key: org.key });
    assert.equal(audit.body.items.length, 1, 'revoked once, audited once');
  });

  test('a key can revoke itself', async () => {
    const minted = (await server.request('POST', keys(), { key: org.key, body: { name: 'self' } })).body;
    assert.equal((await server.request('DELETE', `${keys()}/${minted.keyId}`, { key: minted.key })).status, 200);
    assert.equal((await server.request('GET', keys(), { key: minted.key })).status, 401);
  });

  test('validation: name required and bounded', async () => {
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'x', extra: 1 }]) {
      const res = await server.request('POST', keys(), { key: org.key, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
  });
});

describe('sigsvc org create', () => {
  test('creates an org, its owner and a first key that the service accepts', async () => {
    const { env, cleanup } = await isolatedStore();
    try {
      const res = await runCli(['org', 'create', '--name', 'Acme', '--seats', '3', '--owner-email', 'boss@acme.test', '--owner-password', 'correct horse battery'], env);
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout);
      assert.deepEqual(Object.keys(out).sort(), ['apiKey', 'orgId', 'ownerUserId']);
      assert.match(out.apiKey.key, /^svc_dev_/);
      const server = await startServer(env);
      try {
        const org = await server.request('GET', `/v1/orgs/${out.orgId}`, { key: out.apiKey.key });
        assert.equal(org.status, 200);
        assert.equal(org.body.subscriptionStatus, 'trialing');
        assert.equal(org.body.plan, 'trial');
        assert.equal(org.body.seats, 3);
        const owner = await server.request('GET', `/v1/orgs/${out.orgId}/users/${out.ownerUserId}`, { key: out.apiKey.key });
        assert.equal(owner.body.role, 'owner');
        assert.equal(owner.body.email, 'boss@acme.test');
      } finally {
        await server.close();
      }
      const bad = await runCli(['org', 'create', '--name', 'X', '--owner-email', 'x@y.z', '--owner-password', 'short'], env);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--owner-password must have at least 12 characters/);
      assert.equal(bad.stdout, '');
    } finally {
      await cleanup();
    }
  });
});
