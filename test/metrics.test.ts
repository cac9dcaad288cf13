// GET /metrics: the Prometheus exposition of docs/operations.md, "Metrics". Requests are counted by
// route pattern (never the raw URL), webhook deliveries by outcome, render cache lookups by
// result, the database pool and event-loop lag are reported, and the job counter is ready for the
// queue. Not throttled; with METRICS_TOKEN it needs that bearer token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { deliver, event } from './helpers/payments.ts';
import { waitFor } from './helpers/wait.ts';

/** The value of one sample, by metric name and exact labels (all of them); undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let server: TestServer;
  let org: TestOrg;
  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  test('requests are counted and timed by method, route pattern and status; never by raw URL', async () => {
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
    assert.equal((await fetch(`${server.url}/no/such/${randomUUID()}`)).status, 404);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const text = await scrape();
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: '/v1/orgs/:orgId', status: '200' }), 1);
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: '/health', status: '200' }), 1);
    assert.equal(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/v1/orgs/:orgId', status: '200' }), 1);
    assert.equal(sample(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/v1/orgs/:orgId', status: '200', le: '+Inf' }), 1);
    assert.ok(!text.includes(org.orgId), 'no id appears in a label');
    assert.ok(!text.includes('/no/such'), 'no raw URL appears in a label');
  });

  test("the identity provider's endpoints count each under its path; anything else under its mount", async () => {
    const auth = server.deps.config.authUrl;
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json', '/no/such/thing']) {
      const res = await fetch(`${auth}${path}?x=${randomUUID()}`);
      await res.arrayBuffer();
    }
    const token = await fetch(`${auth}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=x',
    });
    await token.arrayBuffer();
    const text = await scrape();
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: '/auth/.well-known/openid-configuration', status: '200' }), 1);
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: '/auth/.well-known/jwks.json', status: '200' }), 1);
    assert.equal(sample(text, 'http_requests_total', { method: 'POST', route: '/auth/oauth2/token', status: String(token.status) }), 1);
    assert.equal(sample(text, 'http_requests_total', { method: 'GET', route: '/auth/*', status: '404' }), 1);
  });

  test('webhook deliveries by outcome', async () => {
    const linked = event('invoice.payment_failed', { customer: `cus_${org.orgId}`, metadata: { orgId: org.orgId } });
    assert.equal((await deliver(server, linked)).status, 200);
    assert.equal((await deliver(server, linked)).status, 200);
    assert.equal((await deliver(server, event('invoice.paid', { metadata: { orgId: randomUUID() } }))).status, 200);
    assert.equal((await deliver(server, event('invoice.paid', { customer: `cus_nobody_${randomUUID()}` }))).status, 200);
    assert.equal((await deliver(server, linked, { header: 't=1,v1=00' })).status, 401);
    const text = await scrape();
    for (const outcome of ['processed', 'duplicate', 'failed', 'pending', 'invalid_signature']) {
      assert.equal(sample(text, 'webhook_events_total', { outcome }), 1, outcome);
    }
  });

  test('render cache hits and misses', async () => {
    const before = await scrape();
    const hits0 = sample(before, 'render_cache_requests_total', { result: 'hit' }) ?? NaN;
    const misses0 = sample(before, 'render_cache_requests_total', { result: 'miss' }) ?? NaN;
    await createTemplate(server, org);
    const user = await createUser(server, org);
    for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key })).status, 200);
    const text = await scrape();
    assert.equal(sample(text, 'render_cache_requests_total', { result: 'miss' }), misses0 + 1);
    assert.equal(sample(text, 'render_cache_requests_total', { result: 'hit' }), hits0 + 2);
  });

  test('database pool, event-loop lag and process metrics are reported', async () => {
    const text = await scrape();
    const max = sample(text, 'db_pool_max');
    assert.ok(max !== undefined && max >= 1, 'db_pool_max');
    for (const name of ['db_pool_connections', 'db_pool_connections_idle', 'db_pool_waiting']) {
      const v = sample(text, name);
      assert.ok(v !== undefined && v >= 0 && v <= max, `${name} = ${v}`);
    }
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'process_resident_memory_bytes']) {
      assert.ok(sample(text, name) !== undefined, name);
    }
  });

  test('background jobs by kind and outcome, counted through the exported function', async () => {
    server.deps.metrics.jobFinished('directory.sync', 'succeeded');
    server.deps.metrics.jobFinished('directory.sync', 'succeeded');
    server.deps.metrics.jobFinished('gmail.push', 'retried');
    const text = await scrape();
    assert.equal(sample(text, 'jobs_total', { kind: 'directory.sync', outcome: 'succeeded' }), 2);
    assert.equal(sample(text, 'jobs_total', { kind: 'gmail.push', outcome: 'retried' }), 1);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let server: TestServer;
  before(async () => {
    // Buckets of one token: /metrics must answer however often it is scraped.
    server = await startServer({
      METRICS_TOKEN: 'scrape-secret-123',
      // A stage of its own: on Redis, its buckets are no other test file's.
      STAGE: 'metrics',
      RATE_LIMIT_BURST: '1',
      RATE_LIMIT_RPS: '1',
      ANON_RATE_LIMIT_BURST: '1',
      ANON_RATE_LIMIT_RPS: '1',
    });
  });
  after(() => server.close());

  test('without the token, or with another, 401 in the error envelope', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong' },
      { authorization: 'Basic c2NyYXBlLXNlY3JldC0xMjM=' },
      { authorization: 'Bearer scrape-secret-1234' },
    ]) {
      const res = await server.request('GET', '/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.ok(res.body.error.correlationId);
      assert.ok(!res.text.includes('http_requests_total'));
    }
  });

  test('with it, the exposition', async () => {
    const res = await server.request('GET', '/metrics', { token: 'scrape-secret-123' });
    assert.equal(res.status, 200);
    assert.match(res.text, /# TYPE http_requests_total counter/);
  });

  test('not throttled: scrapes, refused or not, go on past every bucket', async () => {
    for (let i = 0; i < 5; i++) {
      assert.equal((await server.request('GET', '/metrics', { token: 'scrape-secret-123' })).status, 200);
      assert.equal((await server.request('GET', '/metrics')).status, 401);
    }
    // The buckets are that small: an org route is throttled at once.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await server.request('GET', '/v1/orgs/x')).status);
    assert.ok(statuses.includes(429), statuses.join());
  });
});

describe('render_threads: an idle render thread stops, the next first render starts one', () => {
  let server: TestServer;
  before(async () => {
    // A render pool of its own (not the test process's shared one), with a short idle time.
    server = await startServer({ RENDER_THREAD_IDLE_MS: '300', RENDER_THREADS: '1' }, { shared: { renderPool: undefined } });
  });
  after(() => server.close());

  const threads = async () => sample(await (await fetch(`${server.url}/metrics`)).text(), 'render_threads');

  test('the gauge follows the thread: 1 while it works, 0 once idle, 1 again for the next first render', async () => {
    const org = await createOrg(server);
    await createTemplate(server, org);
    const render = async () => {
      const user = await createUser(server, org);
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key });
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.html, new RegExp(user.name));
    };
    await render();
    await waitFor(async () => (await threads()) === 0, 'the idle render thread to stop', 10_000);
    await render();
    assert.equal(await threads(), 1);
  });
});
