// The Google jobs on the durable queue: a storm of 429s retried to completion, a restart in the
// middle of a push that resumes without sending anything twice, and two instances sharing the work.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, type TestOrg } from './helpers/fixtures.ts';
import { startFakeGoogle, type FakeGoogle } from './helpers/fake-google.ts';
import { connect, googleDatabase, jobsSettled, startGoogleServer, workspace } from './helpers/google-setup.ts';
import { waitFor } from './helpers/wait.ts';
import { seededDataDir } from './helpers/snapshot.ts';
import { NEEDS_POSTGRES, ON_POSTGRES } from './helpers/pg.ts';

async function deployedCount(server: TestServer, org: TestOrg): Promise<number> {
  const rows = await server.deps.database.db
    .selectFrom('deployments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', org.orgId)
    .where('state', '=', 'deployed')
    .executeTakeFirstOrThrow();
  return Number(rows.n);
}

function patchCounts(fake: FakeGoogle, domain: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of fake.patches) if (p.email.endsWith(`@${domain}`)) counts.set(p.email, (counts.get(p.email) ?? 0) + 1);
  return counts;
}

describe('Google jobs', () => {
  let fake: FakeGoogle;
  before(async () => {
    fake = await startFakeGoogle();
  });
  after(() => fake.close());

  test('a storm of 429s (and some 503s and 403 rate limits) is retried to completion, each user sent once', async () => {
    const database = await googleDatabase();
    const server = await startGoogleServer(fake, database.url);
    try {
      const org = await createOrg(server, { seats: 100 });
      await createTemplate(server, org);
      const ws = workspace(fake, 60);
      fake.failNext('gmail', 429, 40, 0);
      fake.failNext('gmail', 503, 10);
      fake.failNext('gmail', '403-rate', 10);
      fake.failNext('token', 500, 5);
      await connect(server, org, ws);
      await waitFor(async () => (await deployedCount(server, org)) === 61, 'every user deployed', 90_000);
      assert.deepEqual(await jobsSettled(server, org.orgId), []);
      const counts = patchCounts(fake, ws.domain);
      assert.equal(counts.size, 61);
      assert.ok(
        [...counts.values()].every((n) => n === 1),
        'no signature sent twice',
      );
      const metrics = (await server.request('GET', '/metrics')).text;
      assert.match(metrics, /google_api_requests_total\{api="gmail",outcome="retried"\} [1-9]/);
      // Some users ran out of quick retries: the push went on in a later job (the queue's retry of
      // the same job, or the push already queued after it, which then does the rest).
      const pushes = await server.deps.database.db
        .selectFrom('jobs')
        .select(['attempts', 'state'])
        .where('org_id', '=', org.orgId)
        .where('kind', '=', 'google.push')
        .execute();
      assert.ok(pushes.every((j) => j.state === 'succeeded'));
      assert.ok(pushes.some((j) => j.attempts > 1) || pushes.length > 1, `a push went on later: ${JSON.stringify(pushes)}`);
    } finally {
      await server.close();
      await database.drop();
    }
  });

  // Its own time limit: on the embedded store it creates a database on disk (the restart must find
  // it again), which takes most of the run's 120 s default on a busy machine.
  test('a restart in the middle of a push resumes it without pushing anyone twice', { timeout: 400_000 }, async () => {
    const scratch = ON_POSTGRES ? await googleDatabase() : undefined;
    // Embedded: a store on disk that both servers open in turn, seeded with the migrated snapshot.
    const store = scratch ? undefined : await seededDataDir('sigsvc-google-');
    const env: Record<string, string> = store ? { DATA_DIR: store.dir } : {};
    const url = scratch?.url ?? '';
    const ws = workspace(fake, 150);
    let org: TestOrg;
    let first: TestServer | undefined = await startGoogleServer(fake, url, env, {
      google: { retry: { baseMs: 20, maxMs: 200 }, schedulerTickMs: 200, busyRetryMs: 200, pushConcurrency: 4 },
    });
    let second: TestServer | undefined;
    try {
      org = await createOrg(first, { seats: 200 });
      await createTemplate(first, org);
      await connect(first, org, ws, { pushSignatures: false });
      assert.deepEqual(await jobsSettled(first, org.orgId), [], 'the first sync failed no job');
      fake.delayMs = 15;
      const put = await first.request('PUT', `/v1/orgs/${org.orgId}/integrations/google`, {
        key: org.key,
        body: { adminEmail: ws.admin.primaryEmail, syncUsers: true, pushSignatures: true },
      });
      assert.equal(put.status, 200);
      assert.equal((await first.request('POST', `/v1/orgs/${org.orgId}/integrations/google/push`, { key: org.key })).status, 202);
      await waitFor(() => patchCounts(fake, ws.domain).size >= 30, 'a part of the push', 60_000);
      await first.close();
      first = undefined;
      const sentBefore = patchCounts(fake, ws.domain).size;
      assert.ok(sentBefore < 151, `the push was stopped half-way (${sentBefore} sent)`);

      fake.delayMs = 0;
      second = await startGoogleServer(fake, url, env);
      const s = second;
      await waitFor(async () => (await deployedCount(s, org)) === 151, 'the push finished by the new instance', 90_000);
      const counts = patchCounts(fake, ws.domain);
      assert.equal(counts.size, 151);
      assert.deepEqual(
        [...counts.entries()].filter(([, n]) => n !== 1),
        [],
        'no one pushed twice',
      );
    } finally {
      fake.delayMs = 0;
      await first?.close();
      await second?.close();
      await scratch?.drop();
      await store?.cleanup();
    }
  });

  // Both workers start only once all the work is queued, each taking one job at a time: at their
  // first claim each gets a sync of its own, so that both take part does not depend on which one
  // polls first (started before the connections, the one that queued a job often ran its sync and
  // then the push that sync queued, and could end up with every org).
  test('two instances share the work and never run one job twice (PostgreSQL)', { timeout: 400_000, skip: !ON_POSTGRES && NEEDS_POSTGRES }, async () => {
    const database = await googleDatabase();
    const env = { JOBS_CONCURRENCY: '1' };
    const a = await startGoogleServer(fake, database.url, env, { jobWorker: false });
    const b = await startGoogleServer(fake, database.url, env, { jobWorker: false });
    try {
      fake.delayMs = 5;
      const orgs: { org: TestOrg; domain: string }[] = [];
      for (let i = 0; i < 4; i++) {
        const org = await createOrg(a, { seats: 100 });
        await createTemplate(a, org);
        const ws = workspace(fake, 30);
        await connect(i % 2 ? b : a, org, ws);
        orgs.push({ org, domain: ws.domain });
      }
      a.deps.queue.start();
      b.deps.queue.start();
      for (const { org } of orgs) await waitFor(async () => (await deployedCount(a, org)) === 31, 'every org deployed', 120_000);
      for (const { org } of orgs) assert.deepEqual(await jobsSettled(a, org.orgId), []);
      for (const { domain } of orgs) {
        const counts = patchCounts(fake, domain);
        assert.equal(counts.size, 31);
        assert.ok(
          [...counts.values()].every((n) => n === 1),
          'no one pushed twice',
        );
      }
      const metrics = async (s: TestServer) => (await s.request('GET', '/metrics')).text;
      const [textA, textB] = [await metrics(a), await metrics(b)];
      const deployed = (text: string) => Number(/signature_pushes_total\{outcome="deployed"\} (\d+)/.exec(text)?.[1] ?? 0);
      assert.equal(deployed(textA) + deployed(textB), 124);
      // Each job ran once: the attempts that succeeded on the two instances are the jobs there are.
      const succeeded = (text: string) =>
        [...text.matchAll(/jobs_total\{kind="google\.(?:sync|push)",outcome="succeeded"\} (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      const jobs = await a.deps.database.db
        .selectFrom('jobs')
        .select(['state', 'attempts'])
        .where(
          'org_id',
          'in',
          orgs.map((o) => o.org.orgId),
        )
        .where('kind', 'like', 'google.%')
        .execute();
      assert.ok(
        jobs.every((j) => j.state === 'succeeded' && j.attempts === 1),
        JSON.stringify(jobs),
      );
      const [byA, byB] = [succeeded(textA), succeeded(textB)];
      assert.equal(byA + byB, jobs.length);
      assert.ok(byA > 0 && byB > 0, `both instances ran jobs (${byA} and ${byB})`);
    } finally {
      fake.delayMs = 0;
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});
