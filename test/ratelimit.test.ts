import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { waitFor } from './helpers/wait.ts';
import { startServer } from './helpers/server.ts';
import { createOrg } from './helpers/fixtures.ts';
import { manualClock } from './helpers/clock.ts';
import { redisAvailable, redisUrl } from './helpers/redis.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { Redis } from 'ioredis';
import { deliver, event } from './helpers/payments.ts';
import { png } from './helpers/images.ts';

const stage = () => `rl${randomBytes(4).toString('hex')}`;

describe('throttling: the 429 contract, the pixel bucket, the exemptions', () => {
  // Each test has its own server, so its own buckets, on a clock that stands still: no refill
  // unless the test moves the clock, however slowly the machine runs the test. In-process buckets
  // in both passes of the suite: Redis' bucket reads Redis' clock (its tests are below).
  const throttled = async (env: Record<string, string>) => {
    const clock = manualClock();
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', RATE_LIMIT_RPS: '1', PIXEL_RATE_LIMIT_RPS: '1', RETRY_AFTER_S: '30', ...env },
      { clock: clock.now },
    );
    return { server, clock, org: await createOrg(server) };
  };

  test('burst requests pass, then 429 with Retry-After, JSON, the correlation id header and no correlationId in the body', async () => {
    const { server, clock, org } = await throttled({ RATE_LIMIT_BURST: '5' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
        statuses.push(res.status);
        assert.equal(res.headers.get('x-ratelimit-limit'), '5');
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
      const res = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key, headers: { 'x-correlation-id': 'flood-1' } });
      assert.equal(res.status, 429);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('retry-after'), '30');
      assert.equal(res.headers.get('x-correlation-id'), 'flood-1');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
      assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'details', 'message']);
      assert.deepEqual(res.body.error.details, { scope: 'stage' });
      assert.equal(res.body.error.code, 'TOO_MANY_REQUESTS');
      assert.match(res.body.error.message, /30 seconds/);
      assert.equal((await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: 'x@y.z' } })).status, 429);
      // Anonymous requests take from their client's own bucket, never the stage's: still a 401.
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`)).status, 401);
      // One second refills one token (RATE_LIMIT_RPS=1), and only one.
      clock.advance(1000);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 429);
    } finally {
      await server.close();
    }
  });

  test('with the stage bucket empty: the pixel, health, sign-in, docs and the webhook still answer', async () => {
    const { server, org } = await throttled({ RATE_LIMIT_BURST: '1' });
    try {
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 429);
      assert.equal((await fetch(`${server.url}/v1/p/${org.ownerUserId}`)).status, 200);
      assert.equal((await server.request('GET', '/health')).status, 200);
      assert.equal((await fetch(`${server.deps.config.authUrl}/.well-known/openid-configuration`)).status, 200);
      assert.equal((await server.request('GET', '/v1/openapi.json')).status, 200);
      const hook = await deliver(server, event('invoice.paid', { customer: `cus_${org.orgId}`, metadata: { orgId: org.orgId } }));
      assert.equal(hook.status, 200);
    } finally {
      await server.close();
    }
  });

  test('the pixel has its own stricter bucket, which does not touch the API', async () => {
    const { server, org: o } = await throttled({ RATE_LIMIT_BURST: '4', PIXEL_RATE_LIMIT_BURST: '2' });
    try {
      const pixel = () => fetch(`${server.url}/v1/p/${o.ownerUserId}`);
      // HEAD takes from the same bucket as GET, one token each.
      const statuses = [(await fetch(`${server.url}/v1/p/${o.ownerUserId}`, { method: 'HEAD' })).status, (await pixel()).status];
      const third = await pixel();
      assert.deepEqual([...statuses, third.status], [200, 200, 429]);
      assert.equal(third.headers.get('retry-after'), '30');
      assert.equal((await server.request('GET', `/v1/orgs/${o.orgId}`, { key: o.key })).status, 200, 'images cannot starve the API');
    } finally {
      await server.close();
    }
  });
});

describe('throttling after authentication: anonymous requests have per-client buckets', () => {
  // In-process buckets on a clock that stands still, as above: nothing refills during the test.
  const still = { clock: manualClock().now };

  test("230 anonymous requests do not make any tenant's authenticated request 429", async () => {
    // The stage bucket holds 200 tokens: 230 anonymous requests taken from it would leave
    // nothing for the tenants.
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '200', ANON_RATE_LIMIT_RPS: '1', ANON_RATE_LIMIT_BURST: '20' },
      still,
    );
    try {
      const tenants = await Promise.all(Array.from({ length: 12 }, () => createOrg(server)));
      const anonymous: number[] = [];
      for (let i = 0; i < 230; i++) {
        const target = tenants[i % tenants.length]!;
        const headers: Record<string, string> = i % 2 === 0 ? {} : { 'x-api-key': `svc_${server.deps.config.stage}_${'A'.repeat(43)}` };
        anonymous.push((await server.request('GET', `/v1/orgs/${target.orgId}/users`, { headers })).status);
      }
      assert.deepEqual(new Set(anonymous), new Set([401, 429]));
      assert.equal(anonymous.filter((s) => s === 401).length, 20, 'the client bucket holds 20');
      for (const tenant of tenants) {
        const res = await server.request('GET', `/v1/orgs/${tenant.orgId}`, { key: tenant.key });
        assert.equal(res.status, 200, `tenant ${tenant.orgId}: ${res.status}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), '200');
      }
    } finally {
      await server.close();
    }
  });

  test("an anonymous client past its burst gets the throttle's 429; 401 while its bucket has tokens", async () => {
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5', ANON_RATE_LIMIT_RPS: '1', ANON_RATE_LIMIT_BURST: '3', RETRY_AFTER_S: '30' },
      still,
    );
    try {
      const org = await createOrg(server);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { headers: { authorization: 'Bearer not-a-token' }, body: { email: 'a@b.c' } });
        statuses.push(res.status);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
        assert.equal(res.headers.get('x-ratelimit-limit'), '3');
      }
      const refused = await server.request('GET', '/v1/admin/webhook-events', { headers: { 'x-correlation-id': 'anon-flood' } });
      statuses.push(refused.status);
      assert.deepEqual(statuses, [401, 401, 401, 429]);
      assert.equal(refused.headers.get('retry-after'), '30');
      assert.equal(refused.headers.get('x-correlation-id'), 'anon-flood');
      assert.deepEqual(refused.body.error.details, { scope: 'anonymous' });
      assert.equal(refused.body.error.code, 'TOO_MANY_REQUESTS');
      // The tenant's own requests were not touched: its 5 stage tokens are all there.
      for (let i = 0; i < 5; i++) assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 429);
    } finally {
      await server.close();
    }
  });
});

describe('throttling on Redis: one shared bucket, and a fallback while Redis is away', () => {
  test('Redis unreachable: per-instance bucket at the same limits, /health says so; shared again when it is back', async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    const target = new URL(redisUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    // The per-instance fallback bucket runs on the service's clock, standing still here.
    const server = await startServer(
      // A long command timeout: this test is about a cut connection (which fails at once); a timeout
      // firing on a busy machine while Redis still took the token would take one from both buckets.
      { STAGE: stage(), REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_COMMAND_TIMEOUT_MS: '2000', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' },
      { clock: manualClock().now },
    );
    // The assertions read Redis directly, not through the service's client: its short command
    // timeout is for requests, and a busy test machine would trip it here.
    const direct = new Redis(redisUrl());
    try {
      // Until its connection is up the service counts on its own bucket (as it does when Redis is
      // lost); /health answers 200 once Redis answers.
      await waitFor(async () => (await server.request('GET', '/health')).status === 200, 'the connection to Redis');
      const org = await createOrg(server);
      const get = () => server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
      assert.equal((await get()).status, 200);
      const key = `sigsvc:${server.deps.config.stage}:rl:stage`;
      assert.ok(await direct.exists(key), 'the bucket lives in Redis');

      proxy.cut();
      const health = await server.request('GET', '/health');
      assert.equal(health.status, 503);
      assert.ok(health.body.error.details.failing.includes('redis'));
      const during = [];
      for (let i = 0; i < 5; i++) during.push((await get()).status);
      assert.deepEqual(during, [200, 200, 200, 429, 429], 'a full per-instance bucket of the same size');

      proxy.restore();
      let ok = false;
      for (let i = 0; i < 40 && !ok; i++) {
        ok = (await server.request('GET', '/health')).status === 200;
        if (!ok) await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(ok, 'health recovers with Redis');
      await direct.del(key);
      assert.equal((await get()).status, 200);
      assert.ok(await direct.exists(key), 'back on the shared bucket');
    } finally {
      direct.disconnect();
      await server.close();
      await proxy.close();
    }
  });
});

describe('throttling on Redis: the org and stage buckets in one round trip', () => {
  test("an org's refusals take nothing from the stage's bucket; both buckets live in Redis", async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    const server = await startServer(
      {
        STAGE: stage(),
        REDIS_URL: redisUrl(),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
        RATE_LIMIT_RPS: '1',
        RATE_LIMIT_BURST: '10',
        ORG_RATE_LIMIT_RPS: '1',
        ORG_RATE_LIMIT_BURST: '3',
      },
      { clock: manualClock().now },
    );
    const direct = new Redis(redisUrl());
    try {
      await waitFor(async () => (await server.request('GET', '/health')).status === 200, 'the connection to Redis');
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await server.request('GET', `/v1/orgs/${a.orgId}`, { key: a.key })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429]);
      const refused = await server.request('GET', `/v1/orgs/${a.orgId}`, { key: a.key });
      assert.deepEqual(refused.body.error.details, { scope: 'org' });
      const prefix = `sigsvc:${server.deps.config.stage}:rl:`;
      assert.ok(await direct.exists(`${prefix}org:${a.orgId}`), "the org's bucket lives in Redis");
      const stageTokens = Number(await direct.hget(`${prefix}stage`, 'tokens'));
      // 3 of its 10 tokens taken, plus what refilled meanwhile (1 a second); the 5 refusals taking theirs would leave at most 2 plus that.
      assert.ok(stageTokens >= 6.9 && stageTokens < 9, `the stage bucket holds ${stageTokens}`);
      for (let i = 0; i < 3; i++) assert.equal((await server.request('GET', `/v1/orgs/${b.orgId}`, { key: b.key })).status, 200);
    } finally {
      direct.disconnect();
      await server.close();
    }
  });
});

describe('wave 3: per-org buckets, public routes per address (DECISIONS, "No tenant, and no anonymous client, slows another")', () => {
  test("an org at 10× its bucket is refused with scope org, and another org's requests all pass", async () => {
    const clock = manualClock();
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '40', ORG_RATE_LIMIT_RPS: '1', ORG_RATE_LIMIT_BURST: '5' },
      { clock: clock.now },
    );
    try {
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const noisy: number[] = [];
      for (let i = 0; i < 50; i++) noisy.push((await server.request('GET', `/v1/orgs/${a.orgId}`, { key: a.key })).status);
      assert.equal(noisy.filter((s) => s === 200).length, 5, 'the org bucket holds 5');
      const refused = await server.request('GET', `/v1/orgs/${a.orgId}/users`, { key: a.key });
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.body.error.details, { scope: 'org' });
      assert.equal(refused.headers.get('retry-after'), '30');
      // The 45 refused requests took nothing from the stage bucket (40): the quiet org passes.
      for (let i = 0; i < 5; i++) assert.equal((await server.request('GET', `/v1/orgs/${b.orgId}`, { key: b.key })).status, 200);
      clock.advance(1000);
      assert.equal((await server.request('GET', `/v1/orgs/${a.orgId}`, { key: a.key })).status, 200, 'one token a second');
    } finally {
      await server.close();
    }
  });

  test('THROTTLE_REFUSAL_DELAY_MS: a held-back 429 is still the whole answer (the bench measures what the delay buys)', async () => {
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', ORG_RATE_LIMIT_RPS: '1', ORG_RATE_LIMIT_BURST: '1', THROTTLE_REFUSAL_DELAY_MS: '50' },
      { clock: manualClock().now },
    );
    try {
      const org = await createOrg(server);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      const refused = await Promise.all(
        [1, 2, 3].map((i) => server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key, headers: { 'x-correlation-id': `held-${i}` } })),
      );
      for (const [i, res] of refused.entries()) {
        assert.equal(res.status, 429);
        assert.equal(res.headers.get('x-correlation-id'), `held-${i + 1}`);
        assert.equal(res.headers.get('retry-after'), '30');
        assert.deepEqual(res.body.error.details, { scope: 'org' });
      }
    } finally {
      await server.close();
    }
  });

  test('the stage bucket, shared by the orgs, answers scope stage past its tokens', async () => {
    const server = await startServer(
      { STAGE: stage(), REDIS_URL: '', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3', ORG_RATE_LIMIT_RPS: '1', ORG_RATE_LIMIT_BURST: '100' },
      { clock: manualClock().now },
    );
    try {
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const statuses = [];
      for (const org of [a, b, a, b]) statuses.push((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const refused = await server.request('GET', `/v1/orgs/${a.orgId}`, { key: a.key });
      assert.deepEqual(refused.body.error.details, { scope: 'stage' });
    } finally {
      await server.close();
    }
  });

  // The public routes' buckets, one row each: the images and the pixel share a bucket per address
  // beside their stage-wide ones; the images' stage-wide bucket is their own.
  const publicBuckets = [
    {
      name: 'one bucket per address across the public routes (images, the pixel), besides their stage-wide ones',
      env: { PUBLIC_RATE_LIMIT_RPS: '1', PUBLIC_RATE_LIMIT_BURST: '4', ASSET_RATE_LIMIT_RPS: '1', ASSET_RATE_LIMIT_BURST: '100' },
      passes: ['image', 'pixel', 'image', 'pixel'],
      refused: ['image', 'pixel'],
      scope: 'address',
      retryAfter: '30',
      apart: { route: 'api', why: 'the API is apart' },
    },
    {
      name: 'the images have a stage-wide bucket (ASSET_RATE_LIMIT_*), scope asset',
      env: { ASSET_RATE_LIMIT_RPS: '1', ASSET_RATE_LIMIT_BURST: '2' },
      passes: ['image', 'image'],
      refused: ['image'],
      scope: 'asset',
      retryAfter: undefined,
      apart: { route: 'pixel', why: 'the pixel has its own' },
    },
  ] as const;
  for (const row of publicBuckets) {
    test(row.name, async () => {
      const server = await startServer({ STAGE: stage(), REDIS_URL: '', ...row.env }, { clock: manualClock().now });
      try {
        const org = await createOrg(server);
        const upload = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
          method: 'POST',
          headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
          body: new Uint8Array(png(2, 2)),
        });
        assert.equal(upload.status, 201);
        const { url } = (await upload.json()) as { url: string };
        const get = (route: 'image' | 'pixel' | 'api') =>
          route === 'image'
            ? fetch(url)
            : route === 'pixel'
              ? fetch(`${server.url}/v1/p/${org.ownerUserId}`)
              : fetch(`${server.url}/v1/orgs/${org.orgId}`, { headers: { 'x-api-key': org.key } });
        const statuses = [];
        for (const route of row.passes) statuses.push((await get(route)).status);
        assert.deepEqual(
          statuses,
          row.passes.map(() => 200),
        );
        for (const route of row.refused) {
          const refused = await get(route);
          assert.equal(refused.status, 429, route);
          if (row.retryAfter) assert.equal(refused.headers.get('retry-after'), row.retryAfter);
          assert.deepEqual(((await refused.json()) as { error: { details: unknown } }).error.details, { scope: row.scope });
        }
        assert.equal((await get(row.apart.route)).status, 200, row.apart.why);
      } finally {
        await server.close();
      }
    });
  }
});
