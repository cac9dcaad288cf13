// The durable job queue (src/jobs/queue.ts): enqueue in the caller's transaction, claim under a
// lease, retry with backoff, progress, dedupe, a lost lease, a clean stop; on PostgreSQL, two
// instances never run a job twice and a killed instance's job runs again once its lease expires.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.ts';
import { createLogger } from '../src/log.ts';
import {
  backoffMs,
  createJobQueue,
  enqueue,
  JobDeferredError,
  JobFailedError,
  RetryableJobError,
  type JobOutcome,
  type JobQueue,
  type QueueOptions,
} from '../src/jobs/queue.ts';
import { migrate } from '../src/store/migrate.ts';
import { SERVICE_NODE_FLAGS } from '../src/runtime.ts';
import { migratedSnapshot } from './helpers/snapshot.ts';
import { NEEDS_POSTGRES, ON_POSTGRES, postgresAvailable, scratchDatabase } from './helpers/pg.ts';
import { ROOT } from './helpers/process.ts';
import { waitFor } from './helpers/wait.ts';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';

const silent = createLogger('silent', false);
const FAST: Partial<QueueOptions> = { pollMs: 20, leaseMs: 2000, retryBaseMs: 40, retryMaxMs: 400 };

async function openStore(): Promise<Database> {
  const url = ON_POSTGRES ? process.env.DATABASE_URL! : 'memory://';
  return openDatabase({ databaseUrl: url, dataDir: 'unused', snapshot: url === 'memory://' ? await migratedSnapshot() : undefined });
}

/** A kind no other test (or test server on a shared database) has a handler for. */
const kindOf = (name: string) => `test.${name}.${randomUUID().slice(0, 8)}`;

/** Orgs for jobs that belong to one (jobs.org_id references orgs). */
async function newOrgs(database: Database, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await database.db
    .insertInto('orgs')
    .values(ids.map((id) => ({ id, name: `Jobs ${id.slice(0, 8)}` })))
    .execute();
  return ids;
}

const jobRow = (database: Database, jobId: string) => database.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

describe('job queue', () => {
  let database: Database;
  const queues: JobQueue[] = [];
  const queue = (options: Partial<QueueOptions> = {}) => {
    const q = createJobQueue({ db: database.db, logger: silent, options: { ...FAST, ...options } });
    queues.push(q);
    return q;
  };
  before(async () => {
    database = await openStore();
  });
  after(async () => {
    for (const q of queues) await q.stop();
    await database.close();
  });

  test('a job exists only when the transaction that enqueued it commits, and runs once', async () => {
    const kind = kindOf('tx');
    const runs: string[] = [];
    const q = queue();
    q.registerHandler<{ n: number }>(kind, async (job) => {
      runs.push(`${job.payload.n}`);
    });
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await enqueue(trx, { kind, orgId: null, payload: { n: 1 } });
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    const committed = await database.db.transaction().execute((trx) => enqueue(trx, { kind, orgId: null, payload: { n: 2 } }));
    assert.equal(committed.state, 'queued');
    q.start();
    await waitFor(async () => (await jobRow(database, committed.jobId)).state === 'succeeded', 'the committed job');
    // The rolled-back job left no row, so no later poll can run it: no waiting needed to show it.
    const rows = await database.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [committed.jobId],
      'the rolled-back job left no row',
    );
    assert.deepEqual(runs, ['2']);
    const row = await jobRow(database, committed.jobId);
    assert.equal(row.attempts, 1);
    assert.ok(row.started_at && row.finished_at && row.finished_at >= row.started_at);
    assert.equal(row.lease_token, null);
  });

  test('a job retried while a twin with its dedupe key is queued goes back to the queue too: both run', async () => {
    const kind = kindOf('dedupe-retry');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: string[] = [];
    // A lease far longer than the wait below, so that only a recorded retry (not a lease expiring)
    // can run the job again.
    const q = queue({ leaseMs: 120_000 });
    q.registerHandler(kind, async (job) => {
      runs.push(job.jobId);
      if (runs.length === 1) {
        await gate;
        throw new RetryableJobError('remote down');
      }
    });
    const first = await enqueue(database.db, { kind, orgId: null, dedupeKey: 'push' });
    q.start();
    await waitFor(async () => (await jobRow(database, first.jobId)).state === 'running', 'the first job to run');
    const twin = await enqueue(database.db, { kind, orgId: null, dedupeKey: 'push' });
    assert.notEqual(twin.jobId, first.jobId);
    release();
    // Before the fix the retry broke jobs_dedupe: the job stayed `running` until its lease expired.
    await waitFor(async () => (await jobRow(database, first.jobId)).state === 'succeeded', 'the retried job');
    await waitFor(async () => (await jobRow(database, twin.jobId)).state === 'succeeded', 'its twin');
    assert.equal((await jobRow(database, first.jobId)).attempts, 2);
  });

  test('RetryableJobError retries with growing delays until it succeeds; retryAfterMs is honoured', async () => {
    const kind = kindOf('retry');
    const times: number[] = [];
    const outcomes: JobOutcome[] = [];
    const q = queue({ retryBaseMs: 200, retryMaxMs: 10_000, random: () => 0, onOutcome: (_k, o) => outcomes.push(o) });
    q.registerHandler(kind, async (job) => {
      times.push(performance.now());
      if (job.attempt === 1) throw new RetryableJobError('remote down');
      if (job.attempt === 2) throw new RetryableJobError('rate limited', { retryAfterMs: 700 });
    });
    q.start();
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    await waitFor(async () => (await jobRow(database, jobId)).state === 'succeeded', 'the retried job');
    const row = await jobRow(database, jobId);
    assert.equal(row.attempts, 3);
    assert.equal(row.error, null, 'a success clears the last error');
    assert.deepEqual(outcomes, ['retried', 'retried', 'succeeded']);
    // Lower bounds only (the backoff with random() = 0 is half of 200 ms; then the 700 ms asked for).
    assert.ok(times[1]! - times[0]! >= 90, `first retry after ${times[1]! - times[0]!} ms`);
    assert.ok(times[2]! - times[1]! >= 650, `second retry after ${times[2]! - times[1]!} ms`);
  });

  test('a waiting retry shows its error; after maxAttempts the job fails with the last error', async () => {
    const kind = kindOf('exhaust');
    let runs = 0;
    const q = queue();
    q.registerHandler(
      kind,
      async () => {
        runs++;
        throw new RetryableJobError(`SMTP refused (${runs})`);
      },
      { maxAttempts: 3 },
    );
    q.start();
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    await waitFor(async () => (await jobRow(database, jobId)).state === 'failed', 'the exhausted job');
    const row = await jobRow(database, jobId);
    assert.equal(runs, 3);
    assert.equal(row.attempts, 3);
    assert.equal(row.error, 'SMTP refused (3)');
    assert.ok(row.finished_at);
  });

  test('any other error fails the job at once: a JobFailedError shows its message, anything else a generic one', async () => {
    const kind = kindOf('fail');
    const q = queue();
    q.registerHandler<{ how: string }>(kind, async (job) => {
      if (job.payload.how === 'told') throw new JobFailedError('The service account was refused by Google.');
      throw new TypeError('secret internals at /srv/app/x.ts:12');
    });
    q.start();
    const told = await enqueue(database.db, { kind, orgId: null, payload: { how: 'told' } });
    const bug = await enqueue(database.db, { kind, orgId: null, payload: { how: 'bug' } });
    await waitFor(
      async () => (await jobRow(database, told.jobId)).state === 'failed' && (await jobRow(database, bug.jobId)).state === 'failed',
      'both failures',
    );
    const [a, b] = [await jobRow(database, told.jobId), await jobRow(database, bug.jobId)];
    assert.equal(a.attempts, 1);
    assert.equal(a.error, 'The service account was refused by Google.');
    assert.equal(b.attempts, 1);
    assert.doesNotMatch(b.error ?? '', /secret|srv/);
    assert.match(b.error ?? '', /unexpected error/);
  });

  test('progress is readable while the job runs', async () => {
    const kind = kindOf('progress');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = queue();
    q.registerHandler(kind, async (_job, ctx) => {
      await ctx.progress(1, 3);
      await gate;
      await ctx.progress(3, 3);
    });
    q.start();
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    const running = await waitFor(async () => {
      const r = await jobRow(database, jobId);
      return r.progress_done === 1 ? r : undefined;
    }, 'progress 1/3');
    assert.equal(running.state, 'running');
    assert.equal(running.progress_total, 3);
    assert.ok(running.lease_until && running.lease_token);
    release();
    await waitFor(async () => (await jobRow(database, jobId)).state === 'succeeded', 'the job to end');
    const done = await jobRow(database, jobId);
    assert.deepEqual([done.progress_done, done.progress_total], [3, 3]);
  });

  test('a dedupe key answers the queued job instead of a second one; once it runs, a new one queues', async () => {
    const kind = kindOf('dedupe');
    const orgA = null;
    const first = await enqueue(database.db, { kind, orgId: orgA, dedupeKey: 'sync' });
    const again = await enqueue(database.db, { kind, orgId: orgA, dedupeKey: 'sync' });
    assert.equal(again.jobId, first.jobId);
    assert.equal(again.deduplicated, true);
    const otherKey = await enqueue(database.db, { kind, orgId: orgA, dedupeKey: 'other' });
    assert.notEqual(otherKey.jobId, first.jobId);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = queue();
    q.registerHandler(kind, () => gate);
    q.start();
    await waitFor(async () => (await jobRow(database, first.jobId)).state === 'running', 'the first job to run');
    const next = await enqueue(database.db, { kind, orgId: orgA, dedupeKey: 'sync' });
    assert.notEqual(next.jobId, first.jobId, 'a running job does not absorb new requests: it may have read stale data');
    release();
    await waitFor(async () => (await jobRow(database, next.jobId)).state === 'succeeded', 'the second job');
  });

  test('an instance that lost its lease can no longer write the job; the instance that took it over ends it', async () => {
    const kind = kindOf('fence');
    let signal: AbortSignal | undefined;
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    const outcomes: JobOutcome[] = [];
    const a = queue({ leaseMs: 600, onOutcome: (_k, o) => outcomes.push(o) });
    a.registerHandler(kind, async (_job, ctx) => {
      signal = ctx.signal;
      await stalled;
    });
    a.start();
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    await waitFor(() => signal !== undefined, 'A to start the job');
    // A stalls past its lease (its lease ends now), and another instance takes the job over, in one
    // transaction so that A's renewal cannot slip in between.
    const { jobsRepo } = await import('../src/store/repositories/jobs.ts');
    const takeover = await database.db.transaction().execute(async (trx) => {
      await trx.updateTable('jobs').set({ lease_until: sql`now() - interval '1 second'` }).where('id', '=', jobId).execute();
      return jobsRepo.claim(trx, { kinds: [kind], limit: 1, leaseMs: 60_000 });
    });
    assert.equal(takeover.rows.length, 1);
    assert.equal(takeover.rows[0]!.attempts, 2);
    await waitFor(() => signal!.aborted, "A's handler to be told it lost the job");
    release();
    await waitFor(() => outcomes.includes('lost'), 'A to give up its result');
    assert.equal((await jobRow(database, jobId)).state, 'running', "A's late success did not end the job");
    assert.ok(await jobsRepo.succeed(database.db, jobId, takeover.token));
    const row = await jobRow(database, jobId);
    assert.equal(row.state, 'succeeded');
    assert.equal(row.attempts, 2);
  });

  test('stopping an instance aborts its running job and gives it back, the attempt not counted', async () => {
    const kind = kindOf('stop');
    let started = false;
    const a = queue();
    a.registerHandler(kind, async (_job, ctx) => {
      started = true;
      await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    a.start();
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    await waitFor(() => started, 'the job to start');
    await a.stop();
    const row = await jobRow(database, jobId);
    assert.equal(row.state, 'queued');
    assert.equal(row.attempts, 0);
    assert.equal(row.lease_token, null);
    const b = queue();
    b.registerHandler(kind, async () => {});
    b.start();
    await waitFor(async () => (await jobRow(database, jobId)).state === 'succeeded', 'another instance to run it');
  });

  test('claims go round-robin across orgs: an org with an empty backlog waits one worker slot at most', async () => {
    const kind = kindOf('fair');
    const [a, b, c] = await newOrgs(database, 3);
    const started: string[] = [];
    const q = queue({ concurrency: 1 });
    q.registerHandler<{ name: string }>(kind, async (job) => {
      started.push(job.payload.name);
    });
    // Org A's backlog of 6 was queued first; B's and C's one job each after it.
    for (let i = 1; i <= 6; i++) await enqueue(database.db, { kind, orgId: a!, payload: { name: `a${i}` } });
    await enqueue(database.db, { kind, orgId: b!, payload: { name: 'b1' } });
    await enqueue(database.db, { kind, orgId: c!, payload: { name: 'c1' } });
    await enqueue(database.db, { kind, orgId: b!, payload: { name: 'b2' } });
    q.start();
    await waitFor(() => started.length === 9, 'every job');
    // By rounds: every org's 1st job, then the 2nd of those that have one, then A's backlog. Within
    // a round the order is the turns' and the queue times', which the embedded database's clock may
    // give to two jobs alike (B's and C's firsts were seen either way round).
    assert.equal(started[0], 'a1', 'the oldest job first');
    assert.deepEqual(started.slice(0, 3).sort(), ['a1', 'b1', 'c1'], `each org's 1st job before any org's 2nd: ${started}`);
    assert.deepEqual(started.slice(3, 5).sort(), ['a2', 'b2'], `then each 2nd: ${started}`);
    assert.deepEqual(started.slice(5), ['a3', 'a4', 'a5', 'a6'], `then A's backlog in order: ${started}`);
  });

  test('a JobDeferredError puts the job back for its delay, the attempt not counted', async () => {
    const kind = kindOf('defer');
    let runs = 0;
    const q = queue();
    q.registerHandler(kind, async () => {
      runs++;
      if (runs === 1) throw new JobDeferredError('not this hour', 300_000);
    });
    const { jobId } = await enqueue(database.db, { kind, orgId: null });
    q.start();
    await waitFor(async () => runs === 1 && (await jobRow(database, jobId)).state === 'queued', 'the deferral');
    const row = await jobRow(database, jobId);
    assert.equal(row.attempts, 0);
    assert.ok(row.run_after.getTime() > Date.now() + 200_000, 'due in about 5 minutes');
  });

  test('backoff doubles from the base, stays within [half, full] of it, and is capped', () => {
    const o = { retryBaseMs: 1000, retryMaxMs: 10_000 };
    assert.equal(
      backoffMs(1, o, () => 0),
      500,
    );
    assert.equal(
      backoffMs(1, o, () => 0.999999),
      1000,
    );
    assert.equal(
      backoffMs(3, o, () => 0),
      2000,
    );
    assert.equal(
      backoffMs(3, o, () => 0.999999),
      4000,
    );
    assert.equal(
      backoffMs(50, o, () => 0.999999),
      10_000,
    );
    for (let i = 0; i < 100; i++) {
      const d = backoffMs(2, o);
      assert.ok(d >= 1000 && d <= 2000, String(d));
    }
  });
});

describe('job queue on PostgreSQL: several instances', async () => {
  const available = await postgresAvailable();
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  const stores: Database[] = [];
  const queues: JobQueue[] = [];
  const store = async () => {
    const d = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
    stores.push(d);
    return d;
  };
  before(async () => {
    if (!available) return;
    scratch = await scratchDatabase();
    const d = await store();
    await migrate(d);
  });
  after(async () => {
    for (const q of queues) await q.stop();
    for (const d of stores) await d.close();
    if (available) await scratch.drop();
  });

  test('two instances on one database share the work and never run a job twice', { skip: !available && NEEDS_POSTGRES }, async () => {
    const kind = kindOf('shared');
    const runs = new Map<string, string[]>();
    const instances = ['A', 'B'];
    for (const name of instances) {
      const d = await store();
      const q = createJobQueue({ db: d.db, logger: silent, options: { ...FAST, concurrency: 4 } });
      queues.push(q);
      q.registerHandler(kind, async (job) => {
        runs.set(job.jobId, [...(runs.get(job.jobId) ?? []), name]);
        // A little work, so both instances have jobs in flight at once.
        await new Promise((r) => setTimeout(r, 5));
      });
    }
    const d0 = stores[0]!;
    const ids: string[] = [];
    await d0.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 200; i++) ids.push((await enqueue(trx, { kind, orgId: null, payload: { i } })).jobId);
    });
    for (const q of queues) q.start();
    await waitFor(
      async () => {
        const r = await d0.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('kind', '=', kind)
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(r.n) === 200;
      },
      'all 200 jobs',
      60_000,
    );
    assert.equal(runs.size, 200);
    const twice = [...runs.entries()].filter(([, by]) => by.length !== 1);
    assert.deepEqual(twice, [], 'no job ran twice');
    const byA = [...runs.values()].filter((by) => by[0] === 'A').length;
    assert.ok(byA > 0 && byA < 200, `both instances worked (A ran ${byA})`);
    const attempts = await d0.db.selectFrom('jobs').select('attempts').where('kind', '=', kind).execute();
    assert.ok(attempts.every((r) => r.attempts === 1));
  });

  test("two instances claim round-robin across orgs: a quiet org's job starts before the noisy org's 3rd", { skip: !available && NEEDS_POSTGRES }, async () => {
    const kind = kindOf('fair2');
    const d0 = stores[0]!;
    const [noisy, quiet] = await newOrgs(d0, 2);
    const started: string[] = [];
    for (const d of [d0, await store()]) {
      const q = createJobQueue({ db: d.db, logger: silent, options: { ...FAST, concurrency: 1 } });
      queues.push(q);
      q.registerHandler<{ name: string }>(kind, async (job) => {
        started.push(job.payload.name);
        await new Promise((r) => setTimeout(r, 10));
      });
    }
    await d0.db.transaction().execute(async (trx) => {
      for (let i = 1; i <= 40; i++) await enqueue(trx, { kind, orgId: noisy!, payload: { name: `noisy${i}` } });
    });
    await enqueue(d0.db, { kind, orgId: quiet!, payload: { name: 'quiet' } });
    for (const q of queues.slice(-2)) q.start();
    await waitFor(() => started.length === 41, 'every job', 60_000);
    // Two worker slots: the quiet org's job waits for one of them at most; first come first served
    // would have started it 41st.
    const at = started.indexOf('quiet');
    assert.ok(at <= 2, `the quiet org's job started ${at + 1}th: ${started.slice(0, 5).join(', ')}`);
  });

  test('an instance killed mid-job: once its lease expires another instance runs the job', { skip: !available && NEEDS_POSTGRES }, async () => {
    const kind = kindOf('crash');
    const d = stores[0]!;
    const { jobId } = await enqueue(d.db, { kind, orgId: null });
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, 'test/helpers/job-crash-worker.ts', scratch.url, kind, '1500'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise((r) => child.once('exit', r));
    await waitFor(() => out.includes(`started ${jobId}`), `the other process to start the job (output: ${out})`, 60_000);
    child.kill('SIGKILL');
    await exited;
    const held = await jobRow(d, jobId);
    assert.equal(held.state, 'running');
    assert.equal(held.attempts, 1);

    const ran: number[] = [];
    const q = createJobQueue({ db: d.db, logger: silent, options: FAST });
    queues.push(q);
    q.registerHandler(kind, async (job) => {
      ran.push(job.attempt);
    });
    q.start();
    await waitFor(async () => (await jobRow(d, jobId)).state === 'succeeded', 'the job to run again after the lease expired');
    assert.deepEqual(ran, [2], 'run once more, as the second attempt');
  });
});

describe('GET /v1/orgs/{orgId}/jobs/{jobId}', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test("an admin reads the org's job: state, progress, error; another org's job is a 404; a member is refused", async () => {
    const org = await createOrg(server);
    const other = await createOrg(server);
    const db = server.deps.database.db;
    const job = await enqueue(db, { kind: kindOf('route'), orgId: org.orgId, payload: { secret: 'never shown' } });
    await db.updateTable('jobs').set({ progress_done: 2, progress_total: 5, error: 'SMTP refused' }).where('id', '=', job.jobId).execute();
    const res = await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${job.jobId}`, { key: org.key });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'error', 'finishedAt', 'jobId', 'kind', 'progress', 'startedAt', 'state']);
    assert.equal(res.body.jobId, job.jobId);
    assert.equal(res.body.state, 'queued');
    assert.deepEqual(res.body.progress, { done: 2, total: 5 });
    assert.equal(res.body.error, 'SMTP refused');
    assert.equal(res.body.startedAt, null);
    assert.doesNotMatch(res.text, /never shown/);

    const foreign = await server.request('GET', `/v1/orgs/${other.orgId}/jobs/${job.jobId}`, { key: other.key });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'NOT_FOUND');
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${job.jobId}`, { key: other.key })).status, 403);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${job.jobId}`)).status, 401);
    const bad = await server.request('GET', `/v1/orgs/${org.orgId}/jobs/not-a-uuid`, { key: org.key });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'BAD_REQUEST');

    const member = await userWithPassword(server, org, 'member');
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const refused = await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${job.jobId}`, { token: tokens.id_token as string });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error.message, /admin role/);
  });
});
