import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { api, ok, refused, type ApiClient } from './helpers/api.ts';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { hashKey } from '../src/api-keys/key-format.ts';

describe('API keys', () => {
  let server: TestServer;
  let org: TestOrg;
  let client: ApiClient;
  before(async () => {
    server = await startServer({ STAGE: 'test' });
    org = await createOrg(server);
    client = api(server, org);
  });
  after(() => server.close());
  const keys = () => `/v1/orgs/${org.orgId}/api-keys`;
  const orgPath = () => ({ params: { path: { orgId: org.orgId } } });
  const keyPath = (keyId: string) => ({ params: { path: { orgId: org.orgId, keyId } } });
  const mint = async (name: string) => ok(await client.POST('/v1/orgs/{orgId}/api-keys', { ...orgPath(), body: { name } }), 201);

  test('minting: svc_<stage>_<43 base64url chars>, shown once, stored only as a hash', async () => {
    const minted = await mint('CI');
    assert.match(minted.key, /^svc_test_[A-Za-z0-9_-]{43}$/);
    assert.ok(minted.key.startsWith(minted.prefix));
    assert.equal(minted.lastUsedAt, null);
    const list = ok(await client.GET('/v1/orgs/{orgId}/api-keys', orgPath()));
    const listed = list.items.find((k) => k.keyId === minted.keyId);
    assert.equal(listed?.name, 'CI');
    assert.equal((listed as Record<string, unknown> | undefined)?.key, undefined, 'the secret is never listed');
    const row = await server.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', minted.keyId).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, hashKey(minted.key));
    assert.ok(!JSON.stringify(row).includes(minted.key.slice(9)), 'the database holds no secret');
    const again = await mint('CI');
    assert.notEqual(again.key, minted.key);
  });

  test('a key works as Bearer and as X-Api-Key', async () => {
    // The header names on purpose: raw requests.
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { headers: { authorization: `Bearer ${org.key}` } })).status, 200);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { headers: { 'x-api-key': org.key } })).status, 200);
  });

  test('lastUsedAt is written within a second of the first use', async () => {
    const minted = await mint('fresh');
    const before = Date.now();
    ok(await api(server, { key: minted.key }).GET('/v1/orgs/{orgId}', orgPath()), 200);
    let lastUsedAt: string | null | undefined = null;
    for (let i = 0; i < 20 && !lastUsedAt; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const list = ok(await client.GET('/v1/orgs/{orgId}/api-keys', { params: { path: { orgId: org.orgId }, query: { limit: 200 } } }));
      lastUsedAt = list.items.find((k) => k.keyId === minted.keyId)?.lastUsedAt;
    }
    assert.ok(lastUsedAt, 'lastUsedAt was recorded');
    assert.ok(new Date(lastUsedAt).getTime() >= before - 1000);
  });

  test('revocation: immediate on this instance, idempotent, audited, 404 for unknown keys', async () => {
    const minted = await mint('doomed');
    const asMinted = api(server, { key: minted.key });
    ok(await asMinted.GET('/v1/orgs/{orgId}', orgPath()), 200);
    const revoked = ok(await client.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', keyPath(minted.keyId)), 200);
    assert.equal(revoked.keyId, minted.keyId);
    assert.equal(revoked.revoked, true);
    assert.ok(revoked.revokedAt);
    refused(await asMinted.GET('/v1/orgs/{orgId}', orgPath()), 401);
    const twice = ok(await client.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', keyPath(minted.keyId)), 200);
    assert.equal(twice.revokedAt, revoked.revokedAt);
    refused(await client.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', keyPath(crypto.randomUUID())), 404);
    const audit = ok(
      await client.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: org.orgId }, query: { action: 'apiKey.revoke', targetId: minted.keyId } } }),
    );
    assert.equal(audit.items.length, 1, 'revoked once, audited once');
  });

  test('a key can revoke itself', async () => {
    const minted = await mint('self');
    const self = api(server, { key: minted.key });
    ok(await self.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', keyPath(minted.keyId)), 200);
    refused(await self.GET('/v1/orgs/{orgId}/api-keys', orgPath()), 401);
  });

  test('validation: name required and bounded', async () => {
    // Malformed on purpose: raw requests.
    const countBefore = (await server.request('GET', `${keys()}?limit=200`, { key: org.key })).body.items.length;
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'x', extra: 1 }]) {
      const res = await server.request('POST', keys(), { key: org.key, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'BAD_REQUEST', JSON.stringify(body));
      assert.match(res.body.error.details?.field ?? '', /^body/, `${JSON.stringify(body)}: the field is named`);
    }
    const countAfter = (await server.request('GET', `${keys()}?limit=200`, { key: org.key })).body.items.length;
    assert.equal(countAfter, countBefore, 'no key was made');
  });
});

describe('sigsvc org create', () => {
  test('creates an org, its owner and a first key that the service accepts', async () => {
    const { env, cleanup } = await isolatedStore();
    try {
      const res = await runCli(
        ['org', 'create', '--name', 'Acme', '--seats', '3', '--owner-email', 'boss@acme.test', '--owner-password', 'correct horse battery'],
        env,
      );
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout);
      assert.deepEqual(Object.keys(out).sort(), ['apiKey', 'orgId', 'ownerUserId']);
      assert.match(out.apiKey.key, /^svc_dev_/);
      const server = await startServer(env);
      try {
        const client = api(server, { key: out.apiKey.key });
        const org = ok(await client.GET('/v1/orgs/{orgId}', { params: { path: { orgId: out.orgId } } }), 200);
        assert.equal(org.subscriptionStatus, 'trialing');
        assert.equal(org.plan, 'trial');
        assert.equal(org.seats, 3);
        const owner = ok(await client.GET('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId: out.orgId, userId: out.ownerUserId } } }));
        assert.equal(owner.role, 'owner');
        assert.equal(owner.email, 'boss@acme.test');
      } finally {
        await server.close();
      }
      const bad = await runCli(['org', 'create', '--name', 'X', '--owner-email', 'x@y.z', '--owner-password', 'short'], env);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--owner-password: must have at least 12 characters/);
      assert.equal(bad.stdout, '');
    } finally {
      await cleanup();
    }
  });
});
