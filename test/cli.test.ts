import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { runNode } from './helpers/process.ts';
import { postgresAvailable, scratchDatabase } from './helpers/pg.ts';
import { freePort, startServer } from './helpers/server.ts';
import { createOrg, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';

/** A database of its own for CLI runs: a scratch PostgreSQL database, or an embedded one in a temp dir. */
async function isolatedStore(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (process.env.DATABASE_URL?.startsWith('postgres') && (await postgresAvailable())) {
    const scratch = await scratchDatabase();
    return { env: { DATABASE_URL: scratch.url }, cleanup: scratch.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'sigsvc-cli-'));
  return { env: { DATA_DIR: dir, DATABASE_URL: '' }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

describe('sigsvc staff create and keys rotate', () => {
  test('staff create prints a userId; duplicates and short passwords fail with a message', async () => {
    const store = await isolatedStore();
    try {
      const ok = await runNode(['src/cli/main.ts', 'staff', 'create', '--email', 'ops@operator.test', '--password', 'a good staff password'], store.env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(JSON.parse(ok.stdout).userId, /^[0-9a-f-]{36}$/);
      const dup = await runNode(['src/cli/main.ts', 'staff', 'create', '--email', 'OPS@operator.test', '--password', 'a good staff password'], store.env);
      assert.notEqual(dup.code, 0);
      assert.match(dup.stderr, /exists already/);
      const short = await runNode(['src/cli/main.ts', 'staff', 'create', '--email', 'x@operator.test', '--password', 'short'], store.env);
      assert.notEqual(short.code, 0);
      assert.match(short.stderr, /at least 12 characters/);
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

      const rotated = await runNode(['src/cli/main.ts', 'keys', 'rotate'], store.env);
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
