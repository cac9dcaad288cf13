// The two commands of the README give a service whose every integration can be connected: on the
// embedded database, with no SECRETS_KEY, the service makes one into DATA_DIR/secrets.key (mode
// 0600) at its first start, says so once, and reads it back at the next start, so a secret sealed
// before a restart still opens after it; the CLI (`sigsvc secrets rekey`) uses the same key.
// Real processes (`bin/sigsvc.mjs serve`), against the fake of Microsoft on localhost.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startProcess, type ServiceProcess } from './helpers/process.ts';
import { freePort } from './helpers/server.ts';
import { seededDataDir } from './helpers/snapshot.ts';
import { runCli } from './helpers/cli.ts';
import { graphUser, startFakeMicrosoft, type FakeMicrosoft } from './helpers/fake-microsoft.ts';
import { ON_POSTGRES } from './helpers/pg.ts';

const ADVICE =
  /SECRETS_KEY is not set, so a key was generated into .*secrets\.key \(mode 0600\).*Back it up with the data directory, or set its content as SECRETS_KEY/;

describe('the embedded default makes SECRETS_KEY', { skip: ON_POSTGRES && 'a behaviour of the embedded database, tested once, in its pass' }, () => {
  let fake: FakeMicrosoft;
  let store: { dir: string; cleanup: () => Promise<void> };
  before(async () => {
    fake = await startFakeMicrosoft();
    store = await seededDataDir('sigsvc-secrets-key-');
  });
  after(async () => {
    await fake?.close();
    await store?.cleanup();
  });

  test('a fresh data directory: connecting Microsoft 365 works without SECRETS_KEY, the key file is 0600, and a restart opens the sealed secret', {
    timeout: 300_000,
  }, async () => {
    const env = {
      DATA_DIR: store.dir,
      DATABASE_URL: '',
      SECRETS_KEY: '',
      SECRETS_KEY_PREVIOUS: '',
      MICROSOFT_LOGIN_URL: fake.url,
      MICROSOFT_GRAPH_URL: fake.url,
    };
    const file = join(store.dir, 'secrets.key');
    const created = await runCli(
      ['org', 'create', '--name', 'Contoso', '--owner-email', `owner-${randomUUID().slice(0, 8)}@contoso.test`, '--owner-password', 'a long password'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const { orgId, apiKey } = JSON.parse(created.stdout) as { orgId: string; apiKey: { key: string } };
    assert.ok(!existsSync(file), 'a CLI command reads the key file, never makes it');

    const tenantId = randomUUID();
    const clientId = randomUUID();
    fake.tenants.set(tenantId, {
      clientId,
      clientSecret: 'the client secret',
      users: [graphUser({ displayName: 'Ada Lovelace' }), graphUser({ displayName: 'Grace Hopper' })],
    });
    const call = (service: ServiceProcess, method: string, path: string, body?: unknown) =>
      fetch(`${service.url}/v1/orgs/${orgId}${path}`, {
        method,
        headers: { 'x-api-key': apiKey.key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    /** A dry run reads the directory with the stored client secret (the fake refuses a wrong one): it opens only under the key it was sealed with. */
    const dryRunOpensTheSecret = async (service: ServiceProcess) => {
      const dry = await call(service, 'POST', '/integrations/microsoft/sync?dryRun=true');
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      // The first sync (queued by the connection) may have created the two users already.
      assert.equal(typeof dry.body.created, 'number', JSON.stringify(dry.body));
    };

    let service = await startProcess(env, await freePort(), { script: 'bin/sigsvc.mjs', args: ['serve'] });
    try {
      const connected = await call(service, 'PUT', '/integrations/microsoft', { tenantId, clientId, clientSecret: 'the client secret' });
      assert.equal(connected.status, 200, JSON.stringify(connected.body));
      await dryRunOpensTheSecret(service);
      assert.equal(service.output().match(new RegExp(ADVICE, 'g'))?.length, 1, `logged once:\n${service.output()}`);
    } finally {
      await service.stop();
    }
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const key = readFileSync(file, 'utf8').trim();
    assert.equal(Buffer.from(key, 'base64').length, 32);
    assert.ok(!readFileSync(join(store.dir, 'pg', 'PG_VERSION'), 'utf8').includes(key), 'the key is a file of its own');

    // The next start reads the same key: nothing logged, the file unchanged, the secret opens.
    service = await startProcess(env, await freePort(), { script: 'bin/sigsvc.mjs', args: ['serve'] });
    try {
      await dryRunOpensTheSecret(service);
      assert.doesNotMatch(service.output(), ADVICE);
    } finally {
      await service.stop();
    }
    assert.equal(readFileSync(file, 'utf8').trim(), key);

    // The CLI opens what the service sealed, with the same key and no SECRETS_KEY either.
    const rekey = await runCli(['secrets', 'rekey', '--dry-run'], env);
    assert.equal(rekey.code, 0, rekey.stderr);
    const counts = JSON.parse(rekey.stdout) as { resealed: number; bySecret: Record<string, { alreadyCurrent: number }> };
    assert.equal(counts.resealed, 0);
    assert.equal(counts.bySecret.microsoft?.alreadyCurrent, 1, rekey.stdout);
  });
});
