// Leased tokens (src/ratelimit/lease.ts, docs/operations.md "Rate limits across instances"): two
// instances sharing a stage's bucket in Redis admit together at most what the bucket gives plus one
// lease each, and a lease goes back to the bucket when its instance falls quiet or stops.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { redisAvailable, redisUrl } from './helpers/redis.ts';
import { waitFor } from './helpers/wait.ts';
import { manualClock } from './helpers/clock.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';

const BURST = 100;
const LEASE = 10;

/** Two instances (each its own embedded database) sharing one stage, so one stage bucket in Redis. */
async function twoInstances(burst = BURST) {
  const stage = `lease${randomBytes(4).toString('hex')}`;
  const env = {
    STAGE: stage,
    REDIS_URL: redisUrl(),
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    RATE_LIMIT_RPS: '1',
    RATE_LIMIT_BURST: String(burst),
    RATE_LIMIT_LEASE: String(LEASE),
    ORG_RATE_LIMIT_RPS: '100000',
    ORG_RATE_LIMIT_BURST: '100000',
    QUOTA_REQUESTS_PER_MONTH: '0',
    THROTTLE_REFUSAL_DELAY_MS: '0',
  };
  const servers = [await startServer(env), await startServer(env)] as const;
  const orgs = [await createOrg(servers[0]), await createOrg(servers[1])] as const;
  const direct = new Redis(redisUrl());
  const tokens = async () => Number(await direct.hget(`sigsvc:${stage}:rl:stage`, 'tokens'));
  const get = (server: TestServer, org: TestOrg) => server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
  const close = async () => {
    direct.disconnect();
    await Promise.all(servers.map((s) => s.close()));
  };
  return { servers, orgs, tokens, get, close };
}

describe('rate limits on Redis: tokens leased to each instance', () => {
  test('two instances flooding one bucket admit at most the bucket plus one lease each; the first request takes a lease, not a token', async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    const { servers, orgs, tokens, get, close } = await twoInstances();
    try {
      for (const s of servers) await waitFor(async () => (await s.request('GET', '/health')).status === 200, 'the connection to Redis');
      const started = Date.now();
      assert.equal((await get(servers[0], orgs[0])).status, 200);
      // One round trip took a lease of 10 (what refilled meanwhile is at most a token a second).
      const afterFirst = await tokens();
      assert.ok(afterFirst >= BURST - LEASE && afterFirst < BURST - LEASE + 2, `the bucket holds ${afterFirst} after the first request`);
      const statuses: number[] = [200];
      const flood = async (i: number) => {
        for (let n = 0; n < 40; n++) statuses.push((await get(servers[i % 2]!, orgs[i % 2]!)).status);
      };
      await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(flood));
      const elapsedS = (Date.now() - started) / 1000;
      const admitted = statuses.filter((s) => s === 200).length;
      assert.equal(admitted + statuses.filter((s) => s === 429).length, statuses.length, 'only 200 and 429');
      // The bucket gives its burst and a token a second; each instance may have spent one lease more.
      const ceiling = BURST + Math.ceil(elapsedS) + 2 * LEASE;
      assert.ok(admitted <= ceiling, `admitted ${admitted} > ${ceiling}`);
      // And each holds at most one lease unspent.
      assert.ok(admitted >= BURST - 2 * LEASE, `admitted ${admitted}: the bucket, less a lease per instance at most`);
    } finally {
      await close();
    }
  });

  test('a quiet instance gives its lease back, and a stopping one at once', async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    // A bucket so big that refilling (a token a second) cannot bring it back within the wait.
    const burst = 1000;
    const { servers, orgs, tokens, get, close } = await twoInstances(burst);
    try {
      for (const s of servers) await waitFor(async () => (await s.request('GET', '/health')).status === 200, 'the connection to Redis');
      assert.equal((await get(servers[0], orgs[0])).status, 200);
      assert.ok((await tokens()) < burst - LEASE + 2, 'a lease of 10 was taken');
      // The first instance falls quiet: its 9 unspent tokens go back after a second, one spent.
      await waitFor(async () => (await tokens()) >= burst - 1, 'the quiet instance to give its lease back', 8000);
      assert.equal((await get(servers[1], orgs[1])).status, 200);
      assert.ok((await tokens()) < burst - LEASE + 2, 'the second instance took a lease');
      await servers[1].close();
      assert.ok((await tokens()) >= burst - 2, `the stopped instance gave its 9 back: the bucket holds ${await tokens()}`);
    } finally {
      await close();
    }
  });

  test('Redis lost while a bucket is leased: the per-instance bucket at the same limits, and leases again once Redis is back', async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    const target = new URL(redisUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const stage = `lease${randomBytes(4).toString('hex')}`;
    // A burst of 20: leases of 2. The fallback bucket runs on the service's clock, standing still.
    const server = await startServer(
      {
        STAGE: stage,
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_COMMAND_TIMEOUT_MS: '2000',
        RATE_LIMIT_RPS: '1',
        RATE_LIMIT_BURST: '20',
        RATE_LIMIT_LEASE: String(LEASE),
      },
      { clock: manualClock().now },
    );
    const direct = new Redis(redisUrl());
    const key = `sigsvc:${stage}:rl:stage`;
    try {
      await waitFor(async () => (await server.request('GET', '/health')).status === 200, 'the connection to Redis');
      const org = await createOrg(server);
      const get = () => server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
      assert.equal((await get()).status, 200);
      assert.ok(Number(await direct.hget(key, 'tokens')) < 19, 'a lease of 2 was taken');
      assert.equal((await get()).status, 200, 'the second token of the lease, spent here');
      proxy.cut();
      const during: number[] = [];
      for (let i = 0; i < 21; i++) during.push((await get()).status);
      assert.deepEqual(during, [...Array(20).fill(200), 429], 'a full per-instance bucket of the same size');
      proxy.restore();
      await waitFor(async () => (await server.request('GET', '/health')).status === 200, 'health to recover with Redis');
      await direct.del(key);
      assert.equal((await get()).status, 200);
      assert.ok(await direct.exists(key), 'back on the shared bucket');
    } finally {
      direct.disconnect();
      await server.close();
      await proxy.close();
    }
  });
  test('a busy bucket leases what it refills in 10 ms, never more than RATE_LIMIT_LEASE', async (t) => {
    if (!(await redisAvailable())) return t.skip('no Redis reachable');
    const direct = new Redis(redisUrl());
    // The bucket's count after the first request: full, less the one lease taken (Redis writes the
    // refill only when a lease is asked for, so nothing is added between the request and the read).
    const firstLease = async (extra: Record<string, string>) => {
      const stage = `lease${randomBytes(4).toString('hex')}`;
      const server = await startServer({
        STAGE: stage,
        REDIS_URL: redisUrl(),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
        RATE_LIMIT_RPS: '2000',
        RATE_LIMIT_BURST: '100000',
        ...extra,
      });
      try {
        await waitFor(async () => (await server.request('GET', '/health')).status === 200, 'the connection to Redis');
        const org = await createOrg(server);
        assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
        return 100_000 - Number(await direct.hget(`sigsvc:${stage}:rl:stage`, 'tokens'));
      } finally {
        await server.close();
      }
    };
    try {
      assert.equal(await firstLease({}), 20, '2,000 a second for 10 ms');
      assert.equal(await firstLease({ RATE_LIMIT_LEASE: '5' }), 5, 'RATE_LIMIT_LEASE is the most a lease holds');
    } finally {
      direct.disconnect();
    }
  });
});
