import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtectedHeader } from 'jose';
import { runNode } from './helpers/process.ts';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { freePort, startServer } from './helpers/server.ts';
import { createOrg, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { migrationFiles } from '../src/store/migrate.ts';
import { openDatabase } from '../src/store/db.ts';
import { idpKeysRepo } from '../src/store/repositories/idp-keys.ts';

describe('sigsvc as a process: each command once, through bin/sigsvc.mjs', () => {
  // The other tests run the commands in this process (helpers/cli.ts); these check that each one
  // also works as the operator runs it: the launcher, Node's flags, exit codes, stdout and stderr.
  test('migrate, org create, staff create, keys rotate, secrets rekey, events replay', async () => {
    const store = await isolatedStore();
    const sigsvc = (...args: string[]) => runNode(['bin/sigsvc.mjs', ...args], store.env);
    try {
      const migrated = await sigsvc('migrate');
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.equal(JSON.parse(migrated.stdout).current, migrationFiles().at(-1)?.version);

      const org = await sigsvc('org', 'create', '--name', 'Acme', '--owner-email', 'boss@acme.test');
      assert.equal(org.code, 0, org.stderr);
      assert.match(JSON.parse(org.stdout).apiKey.key, /^svc_dev_/);

      const staff = await sigsvc('staff', 'create', '--email', 'ops@operator.test', '--password', 'a good staff password');
      assert.equal(staff.code, 0, staff.stderr);
      assert.match(JSON.parse(staff.stdout).userId, /^[0-9a-f-]{36}$/);

      const rotated = await sigsvc('keys', 'rotate');
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.equal(typeof JSON.parse(rotated.stdout).kid, 'string');

      const rekeyed = await runNode(['bin/sigsvc.mjs', 'secrets', 'rekey'], { ...store.env, SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') });
      assert.equal(rekeyed.code, 0, rekeyed.stderr);
      assert.deepEqual([JSON.parse(rekeyed.stdout).resealed, JSON.parse(rekeyed.stdout).alreadyCurrent], [0, 0]);

      const replayed = await sigsvc('events', 'replay');
      assert.equal(replayed.code, 0, replayed.stderr);
      assert.deepEqual(JSON.parse(replayed.stdout), { replayed: [] });

      // A usage error's exit code and message, in this process like the other tests' checks.
      const unknown = await runCli(['events', 'replay', '--id', 'evt_unknown'], store.env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /no stored event evt_unknown/);
      assert.equal(unknown.stdout, '');
    } finally {
      await store.cleanup();
    }
  });
});

describe('sigsvc staff create and keys rotate', () => {
  test('staff create prints a userId; duplicates and short passwords fail with a message', async () => {
    const store = await isolatedStore();
    try {
      const ok = await runCli(['staff', 'create', '--email', 'ops@operator.test', '--password', 'a good staff password'], store.env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(JSON.parse(ok.stdout).userId, /^[0-9a-f-]{36}$/);
      const dup = await runCli(['staff', 'create', '--email', 'OPS@operator.test', '--password', 'a good staff password'], store.env);
      assert.equal(dup.code, 2);
      assert.match(dup.stderr, /exists already/);
      const short = await runCli(['staff', 'create', '--email', 'x@operator.test', '--password', 'short'], store.env);
      assert.equal(short.code, 2);
      assert.match(short.stderr, /at least 12 characters/);
      // Only the database: no identity provider, so no signing key generated on the way.
      const database = await openDatabase({ databaseUrl: store.env.DATABASE_URL, dataDir: store.env.DATA_DIR ?? 'unused' });
      try {
        assert.deepEqual(await idpKeysRepo.all(database.db), []);
      } finally {
        await database.close();
      }
    } finally {
      await store.cleanup();
    }
  });

  test('after a rotation tokens are signed with the new key, and tokens of the old key still verify', async () => {
    const store = await isolatedStore();
    try {
      // The same address for both runs, so both have the same issuer URL.
      const port = String(await freePort());
      const env = { ...store.env, PORT: port, BASE_URL: `http://127.0.0.1:${port}` };
      const first = await startServer(env);
      const org = await createOrg(first);
      const member = await userWithPassword(first, org, 'member');
      const c1 = await oidcClient(first.deps.config.authUrl, 'app-client-dev', first.deps.config.appUrl);
      const before = (await signIn(c1, { username: member.email, password: member.password })).tokens.id_token as string;
      await first.close();

      const rotated = await runCli(['keys', 'rotate'], store.env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const { kid } = JSON.parse(rotated.stdout);

      const second = await startServer(env);
      try {
        const jwks = (await (await fetch(`${second.deps.config.authUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
        assert.equal(jwks.keys.length, 2, 'the old key stays published');
        assert.equal(jwks.keys[0]?.kid, kid);
        const c2 = await oidcClient(second.deps.config.authUrl, 'app-client-dev', second.deps.config.appUrl);
        const after = (await signIn(c2, { username: member.email, password: member.password })).tokens.id_token as string;
        assert.equal(decodeProtectedHeader(after).kid, kid);
        assert.notEqual(decodeProtectedHeader(before).kid, kid);
        assert.equal((await second.request('GET', `/v1/orgs/${org.orgId}`, { token: before })).status, 200, 'old key still verifies');
        assert.equal((await second.request('GET', `/v1/orgs/${org.orgId}`, { token: after })).status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await store.cleanup();
    }
  });
});
