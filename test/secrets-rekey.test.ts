// Rotating SECRETS_KEY: a service started with the new key and the old one in SECRETS_KEY_PREVIOUS
// still opens what was sealed under the old key; `sigsvc secrets rekey` seals every stored secret
// (Google service account keys, Microsoft client secrets, Outlook add-in keys) again under the new
// key, refusing to change anything while one of them opens under no configured key; afterwards the
// service runs without the old key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { fakeGoogleEnv, startFakeGoogle, type FakeGoogle } from './helpers/fake-google.ts';
import { connect, workspace } from './helpers/google-setup.ts';
import { migrationFiles } from '../src/store/migrate.ts';
import { SEALED_COLUMNS } from '../src/store/repositories/sealed-secrets.ts';

const newKey = () => randomBytes(32).toString('base64');

test('every sealed column of the migrations is one that `secrets rekey` re-seals', () => {
  const sealed = new Set<string>();
  for (const { script } of migrationFiles()) {
    for (const [, table, body] of script.matchAll(/CREATE TABLE (\w+) \(([\s\S]*?)\n\);/g)) {
      for (const [, column] of (body ?? '').matchAll(/^\s+(\w*sealed\w*)\s/gm)) sealed.add(`${table}.${column}`);
    }
    for (const [, table, column] of script.matchAll(/ALTER TABLE (\w+) ADD COLUMN (\w*sealed\w*)/g)) sealed.add(`${table}.${column}`);
  }
  assert.deepEqual(
    [...sealed].sort(),
    Object.values(SEALED_COLUMNS)
      .map((c) => `${c.table}.${c.column}`)
      .sort(),
  );
});

describe('rotating SECRETS_KEY', () => {
  let fake: FakeGoogle;
  before(async () => {
    fake = await startFakeGoogle();
  });
  after(() => fake.close());

  test('old key in SECRETS_KEY_PREVIOUS, `secrets rekey`, then the new key alone: every integration still opens', { timeout: 300_000 }, async () => {
    const store = await isolatedStore();
    const [oldKey, key] = [newKey(), newKey()];
    // No job worker: a connection's sync would reach Google's fake or Microsoft's closed port.
    const serve = (keys: Record<string, string>) => startServer({ ...store.env, ...fakeGoogleEnv(fake), ...keys }, { jobWorker: false });
    const rekey = (keys: Record<string, string>, ...args: string[]) => runCli(['secrets', 'rekey', ...args], { ...store.env, ...keys });
    const both = { SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: oldKey };

    // Under the old key: two Google connections, a Microsoft one, an Outlook add-in key.
    let server: TestServer = await serve({ SECRETS_KEY: oldKey });
    let a: TestOrg, b: TestOrg, addinKey: string;
    const wsA = workspace(fake, 2);
    const wsB = workspace(fake, 2);
    try {
      a = await createOrg(server);
      b = await createOrg(server);
      await connect(server, a, wsA, { syncUsers: false, pushSignatures: false });
      await connect(server, b, wsB, { syncUsers: false, pushSignatures: false });
      const ms = await server.request('PUT', `/v1/orgs/${a.orgId}/integrations/microsoft`, {
        key: a.key,
        body: { tenantId: 'contoso.onmicrosoft.com', clientId: '00000000-0000-4000-8000-000000000000', clientSecret: 'the client secret' },
      });
      assert.equal(ms.status, 200, ms.text);
      // A GET makes no key (DECISIONS wave 3): the first rotation does.
      const outlook = await server.request('POST', `/v1/orgs/${a.orgId}/integrations/outlook/rotate-key`, { key: a.key });
      assert.equal(outlook.status, 200, outlook.text);
      addinKey = outlook.body.addinKey;
    } finally {
      await server.close();
    }

    /** Each integration of the orgs opens under the server's keys: Google's test connection, the add-in key, the Microsoft secret. */
    const everyIntegrationOpens = async (s: TestServer) => {
      for (const org of [a, b]) {
        const res = await s.request('POST', `/v1/orgs/${org.orgId}/integrations/google/test`, { key: org.key });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.ok, true, JSON.stringify(res.body.steps));
      }
      const outlook = await s.request('GET', `/v1/orgs/${a.orgId}/integrations/outlook`, { key: a.key });
      assert.equal(outlook.status, 200, outlook.text);
      assert.equal(outlook.body.addinKey, addinKey);
      const row = await s.deps.database.db.selectFrom('microsoft_integrations').select('sealed_secret').where('org_id', '=', a.orgId).executeTakeFirstOrThrow();
      assert.equal(s.deps.secrets.open(row.sealed_secret, `microsoft:${a.orgId}`), 'the client secret');
    };

    try {
      // Without the old key nothing opens, and the command changes nothing, naming each secret.
      const refused = await rekey({ SECRETS_KEY: key });
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /4 stored secrets cannot be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS, so nothing was changed/);
      assert.match(refused.stderr, new RegExp(`Google Workspace service account's private key of org ${b.orgId}: .*another SECRETS_KEY`));
      assert.match(refused.stderr, new RegExp(`Microsoft Entra client secret of org ${a.orgId}`));
      assert.match(refused.stderr, new RegExp(`Outlook add-in key of org ${a.orgId}`));
      assert.match(refused.stderr, /Add the key they were sealed under to SECRETS_KEY_PREVIOUS/);

      const noKey = await rekey({});
      assert.equal(noKey.code, 2);
      assert.match(noKey.stderr, /SECRETS_KEY is not set/);
      const previousAlone = await rekey({ SECRETS_KEY_PREVIOUS: oldKey });
      assert.equal(previousAlone.code, 2);
      assert.match(previousAlone.stderr, /SECRETS_KEY_PREVIOUS: needs SECRETS_KEY/);
      assert.ok(!previousAlone.stderr.includes(oldKey), 'the key is not shown');
      const badPrevious = await rekey({ SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: `${oldKey},short` });
      assert.equal(badPrevious.code, 2);
      assert.match(badPrevious.stderr, /SECRETS_KEY_PREVIOUS: key 2 of 2 must be 32 random bytes/);

      // The new key with the old one as previous: the service answers as before, and seals anew under the new key.
      server = await serve(both);
      let c: TestOrg;
      try {
        await everyIntegrationOpens(server);
        c = await createOrg(server);
        await connect(server, c, workspace(fake, 1), { syncUsers: false, pushSignatures: false });
      } finally {
        await server.close();
      }

      const dry = await rekey(both, '--dry-run');
      assert.equal(dry.code, 0, dry.stderr);
      const planned = JSON.parse(dry.stdout);
      assert.equal(planned.dryRun, true);
      assert.deepEqual([planned.resealed, planned.alreadyCurrent, planned.changedMeanwhile], [4, 1, 0]);

      const done = await rekey(both);
      assert.equal(done.code, 0, done.stderr);
      const result = JSON.parse(done.stdout);
      assert.equal(result.dryRun, false);
      assert.equal(typeof result.keyId, 'string');
      assert.deepEqual(result.bySecret, {
        google: { resealed: 2, alreadyCurrent: 1, changedMeanwhile: 0 },
        microsoft: { resealed: 1, alreadyCurrent: 0, changedMeanwhile: 0 },
        outlook: { resealed: 1, alreadyCurrent: 0, changedMeanwhile: 0 },
        webhook: { resealed: 0, alreadyCurrent: 0, changedMeanwhile: 0 },
      });
      assert.deepEqual([result.resealed, result.alreadyCurrent], [4, 1]);

      // Idempotent: a second run finds everything under the new key, and so does a run without the old key.
      for (const keys of [both, { SECRETS_KEY: key }]) {
        const again = await rekey(keys);
        assert.equal(again.code, 0, again.stderr);
        assert.deepEqual([JSON.parse(again.stdout).resealed, JSON.parse(again.stdout).alreadyCurrent], [0, 5]);
      }

      // The old key removed: everything still opens.
      server = await serve({ SECRETS_KEY: key });
      try {
        await everyIntegrationOpens(server);
        const res = await server.request('POST', `/v1/orgs/${c.orgId}/integrations/google/test`, { key: c.key });
        assert.equal(res.body.ok, true, JSON.stringify(res.body.steps));
      } finally {
        await server.close();
      }
      // And the old key alone no longer opens any of it.
      server = await serve({ SECRETS_KEY: oldKey });
      try {
        const res = await server.request('POST', `/v1/orgs/${a.orgId}/integrations/google/test`, { key: a.key });
        assert.equal(res.body.ok, false);
        assert.match(JSON.stringify(res.body.steps), /another SECRETS_KEY/);
      } finally {
        await server.close();
      }
    } finally {
      await store.cleanup();
    }
  });
});
