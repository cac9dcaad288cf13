import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_ENV, SERVICE_NODE_FLAGS } from '../src/runtime.ts';
import { startServer, type TestServer } from './helpers/server.ts';
import { runNode } from './helpers/process.ts';
import { configVariables } from '../src/config.ts';
import { scrub } from '../src/kernel/errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('HTTP foundation', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(
      { BODY_LIMIT_BYTES: '2048' },
      {
        beforeReady(app) {
          // Routes that exist only in this test, to drive the error handler's generic paths.
          app.post('/test/echo', async (request) => ({ got: request.body }));
          app.get('/test/boom', async () => {
            throw new Error('db password hunter2 at arn:aws:rds:eu-west-1:123:db/x');
          });
        },
      },
    );
  });
  after(() => server.close());

  test('echoes a usable X-Correlation-Id on success and on errors', async () => {
    const ok = await server.request('GET', '/health', { headers: { 'x-correlation-id': 'trace-abc.123' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-correlation-id'), 'trace-abc.123');
    const missing = await server.request('GET', '/v1/nothing-here', { headers: { 'x-correlation-id': 'trace-404' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-correlation-id'), 'trace-404');
    assert.equal(missing.body.error.correlationId, 'trace-404');
  });

  test('generates a correlation id when none is sent', async () => {
    const res = await server.request('GET', '/health');
    assert.match(res.headers.get('x-correlation-id') ?? '', UUID);
    const err = await server.request('GET', '/nope');
    assert.match(err.body.error.correlationId, UUID);
    assert.equal(err.headers.get('x-correlation-id'), err.body.error.correlationId);
  });

  test('URLs the router refuses (undecodable, over-long segment) get the envelope, 400', async () => {
    for (const path of ['/v1/orgs/%zz', `/v1/orgs/${'x'.repeat(101)}`, `/v1/p/${'x'.repeat(101)}`]) {
      const res = await server.request('GET', path, { headers: { 'x-correlation-id': 'trace-bad-url' } });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.equal(res.body.error.correlationId, 'trace-bad-url');
      assert.equal(res.headers.get('x-correlation-id'), 'trace-bad-url');
      assert.ok(!res.text.includes('FST_ERR'), res.text);
    }
  });

  test('replaces an unusable correlation id instead of rejecting the request', async () => {
    const long = await server.request('GET', '/health', { headers: { 'x-correlation-id': 'x'.repeat(300) } });
    assert.equal(long.status, 200);
    assert.match(long.headers.get('x-correlation-id') ?? '', UUID);
    // Spaces, tabs and non-ASCII bytes get past the HTTP parser but are not echoed; speak raw HTTP.
    for (const value of ['a b', 'a\tb', 'caf\xe9']) {
      const raw = await rawHttp(server.port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: ${value}\r\nConnection: close\r\n\r\n`);
      assert.match(raw, /^HTTP\/1\.1 200/);
      const echoed = /x-correlation-id: (.*)\r\n/i.exec(raw)?.[1] ?? '';
      assert.match(echoed, UUID);
    }
  });

  test('a request the HTTP parser refuses still gets the envelope and a correlation id', async () => {
    const raw = await rawHttp(server.port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: a\x01b\r\nConnection: close\r\n\r\n');
    assert.match(raw, /^HTTP\/1\.1 400/);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    assert.equal(body.error.code, 'BAD_REQUEST');
    assert.match(body.error.correlationId, UUID);
    assert.match(raw, new RegExp(`x-correlation-id: ${body.error.correlationId}`, 'i'));
  });

  test('unknown route: 404 NOT_FOUND in the envelope, UUIDs scrubbed from the message', async () => {
    const res = await server.request('GET', '/v1/things/0b0e9a34-5f5c-4cc1-9d43-1a2b3c4d5e6f');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
    assert.ok(!res.body.error.message.includes('0b0e9a34'), res.body.error.message);
    assert.match(res.body.error.message, /\[id\]/);
  });

  test('malformed JSON: 400 BAD_REQUEST naming the body', async () => {
    const res = await server.request('POST', '/test/echo', { rawBody: '{"a": ' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'BAD_REQUEST');
    assert.equal(res.body.error.details.field, 'body');
    assert.ok(res.body.error.correlationId);
  });

  test('body over BODY_LIMIT_BYTES: 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await server.request('POST', '/test/echo', { body: { big: 'x'.repeat(3000) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(res.body.error.details.limitBytes, 2048);
    const fits = await server.request('POST', '/test/echo', { body: { small: 'x' } });
    assert.equal(fits.status, 200);
  });

  test('unexpected error: 500 INTERNAL_ERROR with a generic message that leaks nothing', async () => {
    const res = await server.request('GET', '/test/boom');
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'INTERNAL_ERROR');
    assert.ok(!/hunter2|arn:|rds/.test(res.text), res.text);
    assert.equal(res.body.error.correlationId, res.headers.get('x-correlation-id'));
  });

  test('OpenAPI 3.1 document and the API reference page', async () => {
    const doc = await server.request('GET', '/v1/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.1.0');
    assert.ok(doc.body.paths['/health']);
    assert.ok(!doc.body.paths['/v1/openapi.json'], 'the document itself is hidden');
    const page = await fetch(`${server.url}/docs/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /swagger/i);
  });

  test('health: 200 with the database check', async () => {
    const res = await server.request('GET', '/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.checks.database.status, 'ok');
  });
});

describe('health when the database is gone', () => {
  test('the embedded database closed: 503 SERVICE_UNAVAILABLE naming the check', async () => {
    const server = await startServer({ DATABASE_URL: 'memory://' });
    try {
      assert.equal((await server.request('GET', '/health')).status, 200);
      await server.deps.database.close();
      const res = await server.request('GET', '/health');
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(res.body.error.details.failing, ['database']);
    } finally {
      await server.close();
    }
  });
});

describe('configuration and start-up', () => {
  test('a bad value stops start-up with a message naming the variable', async () => {
    const res = await runNode(['src/main.ts'], { PORT: 'abc', RATE_LIMIT_RPS: '-1', DATABASE_URL: 'mysql://x' });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /PORT/);
    assert.match(res.stderr, /RATE_LIMIT_RPS/);
    assert.match(res.stderr, /DATABASE_URL: must start with postgres/);
  });

  test('npm start and npm run cli go through bin/sigsvc.mjs, which alone reads the Node flags', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(pkg.scripts.start, 'node bin/sigsvc.mjs serve');
    assert.equal(pkg.scripts.cli, 'node bin/sigsvc.mjs');
    const launcher = readFileSync(new URL('../bin/sigsvc.mjs', import.meta.url), 'utf8');
    assert.match(launcher, /node-flags\.json/);
    for (const flag of SERVICE_NODE_FLAGS) {
      assert.ok(!JSON.stringify(pkg.scripts).includes(flag), `package.json names ${flag}`);
      assert.ok(!launcher.includes(flag), `bin/sigsvc.mjs names ${flag}`);
    }
  });

  test('docs/configuration.md documents every configuration variable', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    for (const v of configVariables()) assert.ok(doc.includes(`\`${v.name}\``), `docs/configuration.md lacks ${v.name}`);
  });
});

describe('scrub', () => {
  test('removes ARNs, JWTs and UUIDs', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-123';
    const out = scrub(`user 0b0e9a34-5f5c-4cc1-9d43-1a2b3c4d5e6f token ${jwt} in arn:aws:cognito-idp:eu-west-1:1:userpool/x.`);
    assert.equal(out, 'user [id] token [token] in [arn]');
  });
});

function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(request, 'latin1')));
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('the process', () => {
  test('sigsvc serve on an empty data dir: runs with the Node flags, migrates, logs where it listens, stops cleanly on SIGTERM', async () => {
    const { startProcess } = await import('./helpers/process.ts');
    const { freePort } = await import('./helpers/server.ts');
    const { seededDataDir } = await import('./helpers/snapshot.ts');
    // A database no migration has touched (initdb alone costs a child process seconds of CPU; the
    // CLI's first-run test makes one from nothing): the service migrates it at start.
    const { dir, cleanup } = await seededDataDir('sigsvc-start-', { migrated: false });
    try {
      // Through the launcher, as `npm start` runs it: it becomes the service (same pid), which
      // receives the SIGTERM itself and runs with the flags of src/node-flags.json.
      const service = await startProcess({ DATA_DIR: dir, DATABASE_URL: '' }, await freePort(), { script: 'bin/sigsvc.mjs', args: ['serve'] });
      const cmdline = readFileSync(`/proc/${service.pid}/cmdline`, 'utf8').split('\0');
      assert.deepEqual(cmdline.slice(1, SERVICE_NODE_FLAGS.length + 2), [...SERVICE_NODE_FLAGS, fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))]);
      // And with the environment of src/node-env.json (glibc reads it at start) and the compile
      // cache, where the caller set none of its own (a value set wins: npm test sets its cache).
      const environ = readFileSync(`/proc/${service.pid}/environ`, 'utf8').split('\0');
      for (const [name, ours] of Object.entries(SERVICE_NODE_ENV)) {
        const value = process.env[name] ?? ours;
        assert.ok(environ.includes(`${name}=${value}`), `the service runs without ${name}=${value}`);
      }
      const health = await fetch(`${service.url}/health`);
      assert.equal(health.status, 200);
      // One log line per request, labelled with its correlation id, the hijacked pixel included.
      await fetch(`${service.url}/health`, { headers: { 'x-correlation-id': 'trace-log-health' } });
      const pixel = await fetch(`${service.url}/v1/p/${crypto.randomUUID()}`, { headers: { 'x-correlation-id': 'trace-log-pixel' } });
      assert.equal(pixel.headers.get('x-correlation-id'), 'trace-log-pixel');
      // The embedded database belongs to the running service: a second process is refused.
      const { runCli } = await import('./helpers/cli.ts');
      const cli = await runCli(['org', 'create', '--name', 'X', '--owner-email', 'x@example.test'], { DATA_DIR: dir, DATABASE_URL: '' });
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /in use by process \d+/);
      assert.equal(cli.stdout, '');
      await service.stop();
      const after = await runCli(['org', 'create', '--name', 'X', '--owner-email', 'x@example.test'], { DATA_DIR: dir, DATABASE_URL: '' });
      assert.equal(after.code, 0, after.stderr);
      const out = service.output();
      assert.match(out, /listening on http:\/\/127\.0\.0\.1:\d+; API reference at .*\/docs; database: embedded PostgreSQL \(PGlite\) in /);
      assert.match(out, /"applied":\["001_tenancy"/);
      assert.match(out, /"msg":"stopped"/);
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      for (const [id, url] of [
        ['trace-log-health', '/health'],
        ['trace-log-pixel', '/v1/p/'],
      ]) {
        const line = lines.find((l) => l.correlationId === id);
        assert.equal(line?.msg, 'request completed', id);
        assert.equal(line.status, 200);
        assert.ok(line.url.startsWith(url));
      }
    } finally {
      await cleanup();
    }
  });
});
