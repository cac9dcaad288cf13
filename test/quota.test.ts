// DECISIONS wave 3, "Monthly quota" and "Staff overrides": API-key requests count against the
// org's month (UTC), past it 429 `details.scope` `quota` with Retry-After = seconds to the month's
// end; plan-status shows the quota; staff set an org's own quota, seats, plan and trial end.
// The count across two instances is in multi-instance.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './helpers/server.ts';
import { createOrg } from './helpers/fixtures.ts';
import { manualClock } from './helpers/clock.ts';
import { waitFor } from './helpers/wait.ts';
import { deliver, event, staffToken, subscription } from './helpers/payments.ts';
import { lapseOrg, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';

/** 60 s before the end of the current calendar month (UTC). */
const monthEndSoon = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 60_000;
};

describe('the monthly quota of API-key requests', () => {
  test('past the quota: 429 scope quota, Retry-After to the month end; a new month starts at 0', async () => {
    const clock = manualClock(monthEndSoon());
    const server = await startServer({ QUOTA_REQUESTS_PER_MONTH: '5' }, { clock: clock.now });
    try {
      const org = await createOrg(server);
      const other = await createOrg(server);
      const statuses: number[] = [];
      // Reads and a refused write count alike: every API-key request that passed the buckets.
      for (let i = 0; i < 4; i++) statuses.push((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status);
      statuses.push((await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: 'not an address' } })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 400]);
      const refused = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'TOO_MANY_REQUESTS');
      assert.deepEqual(refused.body.error.details, { scope: 'quota' });
      assert.equal(refused.headers.get('retry-after'), '60', 'seconds until the month ends');
      assert.match(refused.body.error.message, /60 seconds/);
      assert.equal((await server.request('GET', `/v1/orgs/${other.orgId}`, { key: other.key })).status, 200, 'per org');
      await server.deps.quota.flush();
      const use = await server.deps.quota.use(org.orgId);
      assert.deepEqual({ ...use, resetsAt: use.resetsAt.getTime() }, { limit: 5, used: 5, resetsAt: monthEndSoon() + 60_000 }, 'refusals do not count');

      clock.advance(60_000);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200, 'a new month');
      const plan = await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { key: org.key });
      assert.equal(plan.status, 200);
      const nextMonth = new Date(monthEndSoon() + 60_000);
      assert.deepEqual(plan.body.quota, {
        limit: 5,
        used: 2,
        resetsAt: new Date(Date.UTC(nextMonth.getUTCFullYear(), nextMonth.getUTCMonth() + 1, 1)).toISOString(),
      });
    } finally {
      await server.close();
    }
  });

  test('plan-status counts itself; one row per org and month; QUOTA_REQUESTS_PER_MONTH=0 is no quota', async () => {
    const server = await startServer({ QUOTA_REQUESTS_PER_MONTH: '0' });
    try {
      const org = await createOrg(server);
      for (let i = 0; i < 20; i++) assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      const plan = await waitFor(async () => {
        const res = await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { key: org.key });
        return res.body.quota.used >= 21 && res.body;
      }, 'the count');
      assert.deepEqual({ limit: plan.quota.limit, used: plan.quota.used }, { limit: null, used: 21 });
      await server.deps.quota.flush();
      const rows = await server.deps.database.db.selectFrom('org_usage').selectAll().where('org_id', '=', org.orgId).execute();
      assert.equal(rows.length, 1);
      assert.equal(Number(rows[0]!.requests), 21, 'one row per org and month, added to');
    } finally {
      await server.close();
    }
  });
});

describe('what counts against the quota', () => {
  test('people using the apps (ID tokens) do not count, and are not refused past it', async () => {
    const server = await startServer({ QUOTA_REQUESTS_PER_MONTH: '2' });
    try {
      const org = await createOrg(server);
      const owner = await userWithPassword(server, org, 'owner');
      const { authUrl, appUrl, stage } = server.deps.config;
      const { tokens } = await signIn(await oidcClient(authUrl, `app-client-${stage}`, appUrl), { username: owner.email, password: owner.password });
      const token = tokens.id_token as string;
      for (let i = 0; i < 5; i++) assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users`, { token })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 429);
      const plan = await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { token });
      assert.equal(plan.status, 200, 'the owner still reads the plan past the quota');
      assert.deepEqual([plan.body.quota.limit, plan.body.quota.used], [2, 2]);
    } finally {
      await server.close();
    }
  });
});

describe('staff overrides: PATCH /v1/admin/orgs/{orgId}', () => {
  test("quotaPerMonth: the org's own quota, applied within a second; 0 none, null the default; audited", async () => {
    const server = await startServer({ QUOTA_REQUESTS_PER_MONTH: '1000' });
    try {
      const token = await staffToken(server);
      const org = await createOrg(server);
      const patch = (body: unknown) => server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body, headers: { 'x-correlation-id': 'override-1' } });
      const set = await patch({ quotaPerMonth: 3 });
      assert.equal(set.status, 200);
      assert.deepEqual(set.body.overrides, { seatsOverride: null, planOverride: null, trialEndsAt: null, quotaPerMonth: 3 });
      await waitFor(async () => (await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status === 429, 'the quota of 3');
      const plan = await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { token });
      assert.equal(plan.body.quota.limit, 3);
      assert.ok(plan.body.quota.used >= 3);
      assert.equal((await patch({ quotaPerMonth: 0 })).body.overrides.quotaPerMonth, 0);
      await waitFor(async () => (await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status === 200, 'no quota');
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { token })).body.quota.limit, null);
      assert.equal((await patch({ quotaPerMonth: null })).body.overrides.quotaPerMonth, null);
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/plan-status`, { token })).body.quota.limit, 1000);
      const audit = await server.request('GET', `/v1/admin/audit?limit=200`, { token });
      const mine = audit.body.items.filter((e: { action: string; targetId: string }) => e.action === 'org.overrides' && e.targetId === org.orgId);
      assert.equal(mine.length, 3, 'one staff audit entry per change');
      assert.deepEqual(mine[0].changes, ['quotaPerMonth']);
      assert.equal(mine[0].correlationId, 'override-1');
    } finally {
      await server.close();
    }
  });

  test("seats and plan: the override is effective, payment events never erase it, null gives the events' back", async () => {
    const server = await startServer();
    try {
      const token = await staffToken(server);
      const org = await createOrg(server, { seats: 2 });
      const set = await server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body: { seatsOverride: 40, planOverride: 'enterprise' } });
      assert.equal(set.status, 200);
      assert.deepEqual([set.body.seats, set.body.plan], [40, 'enterprise']);
      const customer = `cus_ovr_${org.orgId.slice(0, 8)}`;
      await deliver(server, event('customer.subscription.updated', subscription(org.orgId, { customer, quantity: 3, lookupKey: 'team' })));
      const seen = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
      assert.deepEqual([seen.body.seats, seen.body.plan], [40, 'enterprise'], "the event changed the events' values only");
      assert.equal(seen.body.overrides, undefined, "the org's own callers see the effective values only");
      const asStaff = await server.request('GET', `/v1/orgs/${org.orgId}`, { token });
      assert.deepEqual(
        asStaff.body.overrides,
        { seatsOverride: 40, planOverride: 'enterprise', trialEndsAt: null, quotaPerMonth: null },
        'staff see the overrides',
      );
      // The seat cap follows the effective seats: 3 users fit although the events give 3 seats and the owner has one.
      for (let i = 0; i < 3; i++) {
        const res = await server.request('POST', `/v1/orgs/${org.orgId}/users`, {
          key: org.key,
          body: { email: `u${i}-${org.orgId.slice(0, 6)}@example.test` },
        });
        assert.equal(res.status, 201, res.text);
      }
      const cleared = await server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body: { seatsOverride: null, planOverride: null } });
      assert.deepEqual([cleared.body.seats, cleared.body.plan], [3, 'team']);
      assert.deepEqual(cleared.body.overrides, { seatsOverride: null, planOverride: null, trialEndsAt: null, quotaPerMonth: null });
      const refused = await server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body: {} });
      assert.equal(refused.status, 400);
    } finally {
      await server.close();
    }
  });

  test('a future trialEndsAt keeps an org writable until then', async () => {
    const server = await startServer();
    try {
      const token = await staffToken(server);
      const org = await createOrg(server);
      await lapseOrg(server, org.orgId);
      const write = () =>
        server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: `t-${Math.random().toString(36).slice(2)}@example.test` } });
      assert.equal((await write()).status, 402);
      const until = new Date(Date.now() + 86_400_000).toISOString();
      const set = await server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body: { trialEndsAt: until } });
      assert.equal(set.body.overrides.trialEndsAt, until);
      assert.equal(set.body.planStatus.writable, true);
      assert.equal((await write()).status, 201);
      await server.request('PATCH', `/v1/admin/orgs/${org.orgId}`, { token, body: { trialEndsAt: new Date(Date.now() - 1000).toISOString() } });
      assert.equal((await write()).status, 402, 'a past trial end changes nothing');
    } finally {
      await server.close();
    }
  });
});
