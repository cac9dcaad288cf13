// What the service's log lines say, read as an operator's log shipper reads them: JSON lines from
// the service's own logger (src/log.ts), with pino's `pid` and `hostname`; the identity
// provider's requests under their full path; a failed payment event with the correlation id of
// the delivery that brought it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { createDeps } from '../src/deps.ts';
import { buildApp } from '../src/app.ts';
import { freePort, httpRequest, testEnv, type TestServer } from './helpers/server.ts';
import { migratedSnapshot } from './helpers/snapshot.ts';
import { testPasswords } from './helpers/passwords.ts';
import { createOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { deliver, event } from './helpers/payments.ts';

type Line = Record<string, unknown>;

describe('log lines', () => {
  let server: TestServer;
  let org: TestOrg;
  const lines: Line[] = [];
  const find = (pred: (l: Line) => boolean) => lines.filter(pred);

  before(async () => {
    const port = await freePort();
    const config = loadConfig(testEnv({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' }));
    const logger = createLogger('info', false, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    const snapshot = config.databaseUrl?.startsWith('memory://') ? await migratedSnapshot() : undefined;
    const deps = await createDeps(config, logger, { snapshot, passwords: testPasswords });
    const app = await buildApp(deps);
    await app.listen({ port, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${port}`;
    server = {
      url,
      port,
      app,
      deps,
      request: (method, path, opts) => httpRequest(url, method, path, opts),
      close: async () => {
        await app.close();
        await deps.close();
      },
    };
    org = await createOrg(server);
  });
  after(() => server.close());

  test("every line carries pino's pid and hostname", async () => {
    await server.request('GET', '/health');
    const completed = find((l) => l.msg === 'request completed' && l.url === '/health');
    assert.equal(completed.length, 1);
    for (const line of [...completed, ...lines.slice(0, 3)]) {
      assert.equal(line.pid, process.pid);
      assert.equal(line.hostname, hostname());
    }
  });

  test('identity provider requests are logged under their full path', async () => {
    const auth = new URL(server.deps.config.authUrl).pathname;
    const owner = await userWithPassword(server, org, 'owner');
    const app = await oidcClient(server.deps.config.authUrl, 'app-client-dev', server.deps.config.appUrl);
    await signIn(app, { username: owner.email, password: owner.password });
    const urls = find((l) => l.msg === 'request completed').map((l) => String(l.url));
    for (const path of ['/.well-known/openid-configuration', '/oauth2/authorize', '/oauth2/token']) {
      assert.ok(
        urls.some((u) => u.startsWith(`${auth}${path}`)),
        `${auth}${path} in ${urls.join(' ')}`,
      );
    }
    assert.ok(
      urls.some((u) => u.startsWith(`${auth}/interaction/`)),
      'the sign-in pages too',
    );
    assert.ok(!urls.some((u) => /^\/(oauth2|\.well-known|interaction)\//.test(u)), `a path without its mount: ${urls.join(' ')}`);
  });

  test("the provider's own lines (a refused grant) carry the full path and the correlation id", async () => {
    const correlationId = `corr-idp-${randomUUID()}`;
    const res = await fetch(`${server.deps.config.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-correlation-id': correlationId },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'app-client-dev',
        code: 'no-such-code',
        code_verifier: 'v'.repeat(43),
        redirect_uri: server.deps.config.appUrl,
      }).toString(),
    });
    assert.equal(res.status, 400);
    await res.arrayBuffer();
    const refused = find((l) => l.correlationId === correlationId && l.event === 'grant.error');
    assert.equal(refused.length, 1, JSON.stringify(lines.slice(-3)));
    assert.equal(refused[0]?.url, `${new URL(server.deps.config.authUrl).pathname}/oauth2/token`);
    assert.equal(refused[0]?.error, 'invalid_grant');
    assert.equal(refused[0]?.pid, process.pid);
  });

  test("the add-in key in a query string is redacted, and the files that embed it are no cache's to keep", async () => {
    const outlook = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key });
    assert.equal(outlook.status, 200, outlook.text);
    const addinKey = outlook.body.addinKey as string;
    for (const path of ['/addin/runtime.js', '/addin/commands.html']) {
      const res = await server.request('GET', `${path}?key=${addinKey}`);
      assert.equal(res.status, 200, path);
      assert.ok(res.text.includes(addinKey), `${path} embeds the key`);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', path);
    }
    // Under another name, or in a path that matches nothing, it is redacted too.
    await server.request('GET', `/v1/addin/signature?email=a%40example.test&k=${addinKey}`);
    await server.request('GET', `/addin/${addinKey}`);
    const text = JSON.stringify(lines);
    assert.ok(!text.includes(addinKey), 'the key appears in no log line');
    const urls = find((l) => l.msg === 'request completed').map((l) => String(l.url));
    assert.ok(urls.includes('/addin/runtime.js?key=[redacted]'), urls.slice(-6).join(' '));
    assert.ok(urls.includes('/addin/commands.html?key=[redacted]'));
    assert.ok(urls.includes('/v1/addin/signature?email=a%40example.test&k=[redacted]'));
    assert.ok(urls.includes('/addin/[redacted]'));
    // Without a key the runtime is the same for everyone: a shared cache may keep it.
    assert.match((await server.request('GET', '/addin/runtime.js')).headers.get('cache-control') ?? '', /^public/);
  });

  test('a failed payment event is logged with the correlation id of its delivery', async () => {
    const correlationId = `corr-webhook-${randomUUID()}`;
    // It names an org that does not exist and no customer to wait for: it fails, kept for replay.
    const evt = event('invoice.paid', { metadata: { orgId: randomUUID() } });
    const res = await deliver(server, evt, { headers: { 'x-correlation-id': correlationId } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-correlation-id'), correlationId);
    const failed = find((l) => l.eventId === evt.id && l.level === 50);
    assert.equal(failed.length, 1, JSON.stringify(failed));
    assert.equal(failed[0]?.correlationId, correlationId);
    assert.match(String(failed[0]?.msg), /failed; kept for replay/);
    // The request's own line carries it too, so the two are found together.
    assert.ok(find((l) => l.msg === 'request completed' && l.correlationId === correlationId && l.url === '/v1/webhooks/payment-provider').length === 1);
  });
  test('the pixel and a tracked link, answered straight on the socket, are each logged once', async () => {
    const pixel = await fetch(`${server.url}/v1/p/${randomUUID()}`);
    await pixel.arrayBuffer();
    const link = server.deps.clicks.trackUrl({ orgId: org.orgId, campaignId: null, variant: null, userId: randomUUID(), destination: 'https://docs.example/' });
    const click = await fetch(link, { redirect: 'manual' });
    assert.equal(click.status, 302);
    for (const res of [pixel, click]) {
      const id = res.headers.get('x-correlation-id');
      assert.equal(find((l) => l.msg === 'request completed' && l.correlationId === id).length, 1, `${res.url}: one line`);
    }
    await server.deps.clicks.flush();
  });
});
