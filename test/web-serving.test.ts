// The web apps as the server delivers them (no browser): index.html at every deep link with the
// runtime config and <base href>, the CSP, caching, the page shown when an app was not built, and
// CORS for apps on another origin.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server.ts';

const DIST = path.join(import.meta.dirname, '..', 'web', 'dist');

function configOf(html: string): Record<string, unknown> {
  const content = /<meta name="sigsvc-config" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(content, 'the page carries its runtime config');
  return JSON.parse(content.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')) as Record<string, unknown>;
}

describe('web apps served at APP_URL and ADMIN_URL', () => {
  let server: TestServer;
  before(async () => {
    // A render limit of the operator's own: the pages must be told it, not assume the default.
    server = await startServer({ BILLING_URL: 'https://billing.example.test/pay', RENDER_LIMIT_BYTES: '40000' });
  });
  after(() => server?.close());

  test('every deep link of the dashboard answers its index.html, configured, uncached, under the CSP', async () => {
    for (const p of ['/app', '/app/', '/app/users', '/app/users/8d3c/edit?x=1']) {
      const res = await fetch(server.url + p);
      assert.equal(res.status, 200, p);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      const html = await res.text();
      assert.match(html, /<base href="\/app\/">/);
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      assert.deepEqual(configOf(html), {
        app: 'app',
        appUrl: `${server.url}/app`,
        authUrl: `${server.url}/auth`,
        clientId: 'app-client-dev',
        apiUrl: server.url,
        billingUrl: 'https://billing.example.test/pay',
        // The limits the pages check and show come from the service, never from copies in web/.
        limits: { renderBytes: 40_000, templateSourceChars: 100_000, imageBytes: 1024 * 1024, imageSidePx: 2000, passwordMinChars: 12 },
      });
    }
  });

  test('the admin app is served at ADMIN_URL with the admin client', async () => {
    const html = await (await fetch(`${server.url}/admin/orgs/1`)).text();
    assert.match(html, /<base href="\/admin\/">/);
    assert.equal(configOf(html).clientId, 'admin-client-dev');
  });

  test('hashed assets are cached for a year; a missing asset is a 404, not the app', async () => {
    const html = await (await fetch(`${server.url}/app/users`)).text();
    const script = /<script type="module" crossorigin src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'index.html loads a hashed script');
    const res = await fetch(`${server.url}/app/${script}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000.*immutable|immutable.*max-age=31536000/);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    const missing = await fetch(`${server.url}/app/assets/nothing-here.js`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  test('assets are sent compressed when the browser accepts it', async () => {
    const name = readdirSync(path.join(DIST, 'app', 'assets')).find((f) => /^index-.*\.js$/.test(f));
    const res = await fetch(`${server.url}/app/assets/${name}`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-encoding') ?? '', /^(br|gzip)$/);
  });

  test('the API sends no CORS headers while the apps share its origin', async () => {
    const res = await fetch(`${server.url}/v1/orgs/00000000-0000-4000-8000-000000000000`, { headers: { origin: 'https://evil.example' } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});

describe('an app that was not built', () => {
  let server: TestServer;
  const empty = mkdtempSync(path.join(tmpdir(), 'sigsvc-nodist-'));
  before(async () => {
    server = await startServer({ WEB_DIST_DIR: empty });
  });
  after(async () => {
    await server?.close();
    rmSync(empty, { recursive: true, force: true });
  });

  test('answers 503 with how to build it, and the API still works', async () => {
    const res = await fetch(`${server.url}/app/users`);
    assert.equal(res.status, 503);
    assert.match(await res.text(), /npm run build:web/);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});

describe('apps on another origin', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ APP_URL: 'https://app.example.test', ADMIN_URL: 'https://staff.example.test/console' });
  });
  after(() => server?.close());

  test('the API allows exactly the apps’ origins', async () => {
    const url = `${server.url}/v1/orgs/00000000-0000-4000-8000-000000000000/users`;
    for (const origin of ['https://app.example.test', 'https://staff.example.test']) {
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      assert.equal(preflight.status, 204, origin);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
      const res = await fetch(url, { headers: { origin } });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /Retry-After/i);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /\bDate\b/i, "the dashboard reads the server's clock");
    }
    const other = await fetch(url, { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const otherPreflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(otherPreflight.headers.get('access-control-allow-origin'), null);
  });

  test('an app at the root of its own origin is served at "/" without hiding the API', async () => {
    const page = await fetch(`${server.url}/users/1`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<base href="\/">/);
    const staff = await (await fetch(`${server.url}/console/x`)).text();
    assert.match(staff, /<base href="\/console\/">/);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    assert.equal((await fetch(`${server.url}/v1/orgs/00000000-0000-4000-8000-000000000000`)).status, 401);
  });
});
