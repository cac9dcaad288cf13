// What a service loads only when it first needs it (BENCHMARKS.md, "Memory": each is heap that an
// instance without the feature would otherwise hold for good): the module graph of the service,
// imported in a fresh process, holds none of these packages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNode } from './helpers/process.ts';

const LAZY = {
  nodemailer: 'mail is sent (mail/mailer.ts) or the gateway relays (gateway/relay.ts)',
  'smtp-server': 'the gateway listens (gateway/listener.ts)',
  '@zone-eu/mailsplit': 'the gateway reads its first message (gateway/engine.ts)',
  'iconv-lite': 'the gateway reads its first message',
  libqp: 'the gateway reads its first message',
  qrcode: 'a TOTP enrolment page is shown (idp/interactions.ts)',
  'csv-parse': 'users are imported from CSV (users/import.ts)',
  pg: 'DATABASE_URL names a PostgreSQL server (store/db.ts)',
  ioredis: 'REDIS_URL is set (core/core.ts)',
};

const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context); } });
await import('./src/deps.ts');
await import('./src/app.ts');
console.log(JSON.stringify([...loaded]));
`;

test('the service’s module graph loads none of the packages it loads on first use', async () => {
  const run = await runNode(['--input-type=module', '-e', SCRIPT], {});
  assert.equal(run.code, 0, run.stderr);
  const loaded: string[] = JSON.parse(run.stdout);
  assert.ok(
    loaded.some((url) => url.endsWith('/src/deps.ts')),
    'the hook saw the graph',
  );
  for (const [name, when] of Object.entries(LAZY)) {
    const found = loaded.find((url) => url.includes(`/node_modules/${name}/`));
    assert.equal(found, undefined, `${name} is loaded with the service; it should load when ${when}`);
  }
});
