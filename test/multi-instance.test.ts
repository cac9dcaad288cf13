// Two real service processes on one PostgreSQL and one Redis behave as one stage.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { startProcess, type ServiceProcess } from './helpers/process.ts';
import { runCli } from './helpers/cli.ts';
import { ON_POSTGRES, postgresAvailable, scratchDatabase } from './helpers/pg.ts';
import { redisAvailable, redisUrl } from './helpers/redis.ts';
import { freePort, httpRequest } from './helpers/server.ts';
import { event, signedHeader, SECRET } from './helpers/payments.ts';
import { waitFor } from './helpers/wait.ts';
import pg from 'pg';

const RATE = 50;
const BURST = 100;
const SIGNIN_PER_MINUTE = 6;

describe('two instances, one stage', () => {
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  let org: { orgId: string; ownerUserId: string; apiKey: { keyId: string; key: string } };
  let skipReason: string | undefined;

  before(async () => {
    if (!ON_POSTGRES) {
      skipReason = 'runs when DATABASE_URL points at PostgreSQL (the second pass of .ci/run)';
      return;
    }
    if (!(await postgresAvailable()) || !(await redisAvailable())) {
      skipReason = 'PostgreSQL or Redis unreachable';
      return;
    }
    const scratch = await scratchDatabase();
    drop = scratch.drop;
    const stage = `mi${randomBytes(4).toString('hex')}`;
    const env = {
      DATABASE_URL: scratch.url,
      REDIS_URL: redisUrl(),
      STAGE: stage,
      RATE_LIMIT_RPS: String(RATE),
      RATE_LIMIT_BURST: String(BURST),
      WEBHOOK_SECRET: SECRET,
      CACHE_TTL_MS: '2000',
      SIGNIN_ATTEMPTS_PER_MINUTE: String(SIGNIN_PER_MINUTE),
    };
    const created = await runCli(['org', 'create', '--name', 'Multi', '--owner-email', 'multi@example.test'], env);
    assert.equal(created.code, 0, created.stderr);
    org = JSON.parse(created.stdout);
    [a, b] = await Promise.all([startProcess(env, await freePort()), startProcess(env, await freePort())]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  const call = (p: ServiceProcess | undefined, method: string, path: string, opts: Parameters<typeof httpRequest>[3] = {}) =>
    httpRequest((p as ServiceProcess).url, method, path, opts);

  test('a user created through one is visible through the other', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const made = await call(a, 'POST', `/v1/orgs/${org.orgId}/users`, { key: org.apiKey.key, body: { email: `u-${randomUUID().slice(0, 6)}@example.test` } });
    assert.equal(made.status, 201);
    const seen = await call(b, 'GET', `/v1/orgs/${org.orgId}/users/${made.body.userId}`, { key: org.apiKey.key });
    assert.equal(seen.status, 200);
    assert.equal(seen.body.email, made.body.email);
  });

  test('one event delivered to both at once is applied once', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const evt = event('customer.subscription.updated', {
      id: 'sub_multi',
      customer: `cus_${org.orgId}`,
      status: 'active',
      metadata: { orgId: org.orgId },
      items: { data: [{ quantity: 42, price: { id: 'price_multi', lookup_key: 'multi' } }] },
    });
    const payload = JSON.stringify(evt);
    const send = (p: ServiceProcess | undefined) =>
      call(p, 'POST', '/v1/webhooks/payment-provider', { rawBody: payload, headers: { 'provider-signature': signedHeader(payload) } });
    const results = await Promise.all([send(a), send(b), send(a), send(b)]);
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200, 200],
    );
    assert.equal(results.filter((r) => r.body.kind === 'patch').length, 1);
    assert.equal(results.filter((r) => r.body.deduplicated === true).length, 3);
    const audit = await call(b, 'GET', `/v1/orgs/${org.orgId}/audit?action=billing.customer.subscription.updated`, { key: org.apiKey.key });
    assert.equal(audit.body.items.length, 1);
  });

  test('a burst delivered to both, in opposite orders, applies every event exactly once', async (t) => {
    if (skipReason) return t.skip(skipReason);
    // Each instance batches what arrives together; the batches overlap and claim the same ids.
    const events = Array.from({ length: 40 }, (_, i) =>
      event('invoice.payment_failed', { customer: `cus_${org.orgId}`, metadata: { orgId: org.orgId }, attempt_count: i }),
    );
    const send = (p: ServiceProcess | undefined, evt: ReturnType<typeof event>) => {
      const payload = JSON.stringify(evt);
      return call(p, 'POST', '/v1/webhooks/payment-provider', { rawBody: payload, headers: { 'provider-signature': signedHeader(payload) } });
    };
    const results = await Promise.all([...events.map((e) => send(a, e)), ...[...events].reverse().map((e) => send(b, e))]);
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    assert.equal(results.filter((r) => r.body.kind === 'patch').length, events.length, 'each applied once');
    assert.equal(results.filter((r) => r.body.deduplicated === true).length, events.length, 'and a duplicate once');
    const audit = await call(a, 'GET', `/v1/orgs/${org.orgId}/audit?action=billing.invoice.payment_failed&limit=200`, { key: org.apiKey.key });
    assert.equal(audit.body.items.length, events.length);
  });

  test('a key revoked through one is refused by the other within 5 seconds', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const minted = await call(a, 'POST', `/v1/orgs/${org.orgId}/api-keys`, { key: org.apiKey.key, body: { name: 'to revoke' } });
    assert.equal(minted.status, 201);
    assert.equal((await call(b, 'GET', `/v1/orgs/${org.orgId}`, { key: minted.body.key })).status, 200, 'B has it cached now');
    assert.equal((await call(a, 'DELETE', `/v1/orgs/${org.orgId}/api-keys/${minted.body.keyId}`, { key: org.apiKey.key })).status, 200);
    assert.equal((await call(a, 'GET', `/v1/orgs/${org.orgId}`, { key: minted.body.key })).status, 401, 'at once on A');
    // A deadline, not a measurement: B must refuse it before 5 s have passed.
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) {
      status = (await call(b, 'GET', `/v1/orgs/${org.orgId}`, { key: minted.body.key })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401);
  });

  test('sign-in attempts from one address are counted once across both (the buckets live in Redis)', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const statuses: number[] = [];
    // Alternating instances: each alone would allow SIGNIN_PER_MINUTE, together 2× as many.
    for (let i = 0; i < SIGNIN_PER_MINUTE * 2; i++) {
      const p = i % 2 === 0 ? a : b;
      const res = await fetch(`${(p as ServiceProcess).url}/auth/forgot-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: `nobody-${i}@example.test` }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    // A refill of one token every 10 s may fall inside the run: at most one more passes.
    const passed = statuses.filter((s) => s === 200).length;
    assert.ok(passed >= SIGNIN_PER_MINUTE && passed <= SIGNIN_PER_MINUTE + 1, statuses.join(' '));
    assert.deepEqual(statuses.slice(0, SIGNIN_PER_MINUTE), Array(SIGNIN_PER_MINUTE).fill(200));
    assert.equal(statuses.at(-1), 429, statuses.join(' '));
    assert.ok(statuses.slice(SIGNIN_PER_MINUTE).filter((s) => s === 429).length >= SIGNIN_PER_MINUTE - 1, statuses.join(' '));
  });

  test('the requests both admit within a second stay within burst + rate (±5 %)', async (t) => {
    if (skipReason) return t.skip(skipReason);
    // Let the shared bucket fill up again after the other tests.
    await new Promise((r) => setTimeout(r, (BURST / RATE) * 1000 + 200));
    const started = Date.now();
    const statuses: number[] = [];
    const worker = async (p: ServiceProcess | undefined) => {
      while (Date.now() - started < 1000) {
        statuses.push((await call(p, 'GET', `/v1/orgs/${org.orgId}`, { key: org.apiKey.key })).status);
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map(worker));
    const elapsedS = (Date.now() - started) / 1000;
    const admitted = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    assert.equal(admitted + refused, statuses.length, 'only 200 and 429');
    const ceiling = (BURST + RATE * elapsedS) * 1.05;
    assert.ok(refused > 0, 'the flood was throttled');
    assert.ok(admitted <= ceiling, `admitted ${admitted} > ${ceiling.toFixed(0)} (burst + rate × ${elapsedS.toFixed(2)} s + 5 %)`);
    assert.ok(admitted >= BURST * 0.95, `admitted ${admitted}: at least the burst`);
  });
});

// DECISIONS wave 3, "No tenant, and no anonymous client, slows another": the per-org bucket and the
// monthly quota, shared by two instances through Redis and PostgreSQL.
describe('two instances: per-org buckets and the monthly quota', () => {
  const ORG_RATE = 10;
  const ORG_BURST = 20;
  const QUOTA = 50;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  const orgs: { orgId: string; apiKey: { key: string } }[] = [];
  let skipReason: string | undefined;

  before(async () => {
    if (!ON_POSTGRES) {
      skipReason = 'runs when DATABASE_URL points at PostgreSQL (the second pass of .ci/run)';
      return;
    }
    if (!(await postgresAvailable()) || !(await redisAvailable())) {
      skipReason = 'PostgreSQL or Redis unreachable';
      return;
    }
    scratch = await scratchDatabase();
    const env = {
      DATABASE_URL: scratch.url,
      REDIS_URL: redisUrl(),
      STAGE: `mq${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_RPS: String(RATE),
      RATE_LIMIT_BURST: String(BURST),
      ORG_RATE_LIMIT_RPS: String(ORG_RATE),
      ORG_RATE_LIMIT_BURST: String(ORG_BURST),
      QUOTA_REQUESTS_PER_MONTH: String(QUOTA),
      // Refusals at once: the flood below is 10× the bucket within its first second or so.
      THROTTLE_REFUSAL_DELAY_MS: '0',
    };
    for (const name of ['Noisy', 'Quiet', 'Counted']) {
      const created = await runCli(['org', 'create', '--name', name, '--owner-email', `${name.toLowerCase()}@example.test`], env);
      assert.equal(created.code, 0, created.stderr);
      orgs.push(JSON.parse(created.stdout));
    }
    [a, b] = await Promise.all([startProcess(env, await freePort()), startProcess(env, await freePort())]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await scratch?.drop();
  });

  const get = (p: ServiceProcess | undefined, org: { orgId: string; apiKey: { key: string } }) =>
    httpRequest((p as ServiceProcess).url, 'GET', `/v1/orgs/${org.orgId}`, { key: org.apiKey.key });
  /** The org's count in the database (read directly: a plan-status request would count itself). */
  const counted = async (orgId: string) => {
    const client = new pg.Client({ connectionString: scratch!.url });
    await client.connect();
    try {
      const r = await client.query('select coalesce(sum(requests), 0)::int as n from org_usage where org_id = $1', [orgId]);
      return r.rows[0].n as number;
    } finally {
      await client.end();
    }
  };

  test("org A at 10× its bucket through both instances: B's requests all pass; each admitted request counted once", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const [noisy, quiet] = orgs as [(typeof orgs)[0], (typeof orgs)[0]];
    const flood: { status: number; scope?: string }[] = [];
    const floodWorker = async (p: ServiceProcess | undefined, n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await get(p, noisy);
        flood.push({ status: res.status, scope: res.body?.error?.details?.scope });
      }
    };
    const quietStatuses: number[] = [];
    const quietWorker = async () => {
      for (let i = 0; i < 10; i++) {
        quietStatuses.push((await get(i % 2 ? a : b, quiet)).status);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // 200 requests: 10× the org's burst, from both instances at once.
    await Promise.all([...[a, b, a, b, a, b, a, b].map((p) => floodWorker(p, 25)), quietWorker()]);
    const admitted = flood.filter((r) => r.status === 200).length;
    assert.deepEqual(quietStatuses, Array(10).fill(200), 'the quiet org was never refused');
    assert.ok(
      flood.every((r) => r.status === 200 || (r.status === 429 && r.scope === 'org')),
      'only 200 and 429 scope org',
    );
    assert.ok(admitted >= ORG_BURST * 0.95 && admitted < 200 / 2, `admitted ${admitted}: the org's bucket, shared by both`);
    // Both instances flush within a second; the total is then exactly what was admitted, and stays.
    await waitFor(async () => (await counted(noisy.orgId)) === admitted, `the count of ${admitted}`, 5000);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await counted(noisy.orgId), admitted, 'counted once');
    assert.equal(await counted(quiet.orgId), 10);
  });

  test('the quota is enforced across both instances within a second of the count passing it', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const org = orgs[2]!;
    let admitted = 0;
    let firstRefusal: number | undefined;
    const refusedBy = new Set<string>();
    // Within the org's bucket (10 a second), alternating instances, until both refuse for the quota
    // for a whole second.
    for (let i = 0; refusedBy.size < 2 || Date.now() - (firstRefusal as number) < 1000; i++) {
      const p = i % 2 ? a : b;
      const res = await get(p, org);
      if (res.status === 200) {
        assert.equal(firstRefusal === undefined || Date.now() - firstRefusal < 1000, true, 'admitted more than a second after the quota was passed');
        admitted++;
      } else if (res.status === 429 && res.body.error.details.scope === 'quota') {
        firstRefusal ??= Date.now();
        refusedBy.add(p === a ? 'a' : 'b');
        assert.ok(Number(res.headers.get('retry-after')) > 0);
      }
      await new Promise((r) => setTimeout(r, 1000 / ORG_RATE));
      assert.ok(i < 200, 'the quota was never enforced');
    }
    assert.ok(admitted >= QUOTA && admitted <= QUOTA + ORG_BURST, `admitted ${admitted}: the quota of ${QUOTA}, passed by at most a flush's worth`);
    await waitFor(async () => (await counted(org.orgId)) === admitted, `the count of ${admitted}`, 5000);
  });
});
