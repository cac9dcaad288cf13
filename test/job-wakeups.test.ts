// The job queues are woken by the database when a job becomes due (src/jobs/wakeups.ts, migration
// 143), not by their polls: every queue here polls once in ten minutes, so a job that runs within
// the test's bounds was announced. On PostgreSQL, another instance is woken too, and a listening
// connection the server ends is opened again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.ts';
import { createLogger } from '../src/log.ts';
import { createJobQueue, enqueue, RetryableJobError, type JobQueue } from '../src/jobs/queue.ts';
import { JOBS_CHANNEL, listenForJobs, type JobWakeups } from '../src/jobs/wakeups.ts';
import { migrate } from '../src/store/migrate.ts';
import { migratedSnapshot } from './helpers/snapshot.ts';
import { NEEDS_POSTGRES, ON_POSTGRES, postgresAvailable, scratchBehindProxy, scratchDatabase } from './helpers/pg.ts';
import { waitFor } from './helpers/wait.ts';
import { startServer, type TestServer } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { createOrg } from './helpers/fixtures.ts';

const silent = createLogger('silent', false);
/** Longer than any test here: a job that ran was woken, not polled for. */
const NEVER_POLL = { pollMs: 600_000, leaseMs: 5000 };
const kindOf = (name: string) => `test.${name}.${randomUUID().slice(0, 8)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('job queues woken by the database', () => {
  let database: Database;
  let wakeups: JobWakeups;
  const queues: JobQueue[] = [];
  const queue = () => {
    const q = createJobQueue({ db: database.db, logger: silent, wakeups, options: NEVER_POLL });
    queues.push(q);
    return q;
  };
  before(async () => {
    const url = ON_POSTGRES ? process.env.DATABASE_URL! : 'memory://';
    database = await openDatabase({ databaseUrl: url, dataDir: 'unused', snapshot: url === 'memory://' ? await migratedSnapshot() : undefined });
    wakeups = await listenForJobs(database);
  });
  after(async () => {
    for (const q of queues) await q.stop();
    wakeups.close();
    await database.close();
  });

  test('a job runs as soon as the transaction that queued it commits, and not before', async () => {
    const kind = kindOf('commit');
    const runs: number[] = [];
    const q = queue();
    q.registerHandler<{ n: number }>(kind, async (job) => void runs.push(job.payload.n));
    q.start();
    await sleep(100); // the first claim, at start, found nothing: the queue sleeps now
    await database.db.transaction().execute(async (trx) => {
      await enqueue(trx, { kind, orgId: null, payload: { n: 1 } });
      await sleep(300);
      assert.deepEqual(runs, [], 'not claimable, and not announced, before the commit');
    });
    await waitFor(() => runs.length === 1, 'the job woken by its commit', 10_000);
    // A rolled-back job is never announced; the next one is, and runs alone.
    await database.db
      .transaction()
      .execute(async (trx) => {
        await enqueue(trx, { kind, orgId: null, payload: { n: 2 } });
        throw new Error('rolled back');
      })
      .catch(() => {});
    await enqueue(database.db, { kind, orgId: null, payload: { n: 3 } });
    await waitFor(() => runs.length === 2, 'the second job', 10_000);
    assert.deepEqual(runs, [1, 3]);
  });

  test('a retry runs when its delay has passed, and a job due later when it is due', async () => {
    const kind = kindOf('retry');
    const started: number[] = [];
    const q = queue();
    q.registerHandler(kind, async () => {
      started.push(performance.now());
      if (started.length === 1) throw new RetryableJobError('not yet', { retryAfterMs: 400 });
    });
    q.start();
    await sleep(50);
    await enqueue(database.db, { kind, orgId: null });
    await waitFor(() => started.length === 2, 'the retry', 10_000);
    assert.ok(started[1]! - started[0]! >= 350, `the retry waited its delay (${Math.round(started[1]! - started[0]!)} ms)`);

    const delayed = kindOf('delayed');
    let ranAt = 0;
    q.registerHandler(delayed, async () => {
      ranAt = performance.now();
    });
    const queuedAt = performance.now();
    await enqueue(database.db, { kind: delayed, orgId: null, delayMs: 500 });
    await waitFor(() => ranAt > 0, 'the delayed job', 10_000);
    assert.ok(ranAt - queuedAt >= 450, `not before it was due (${Math.round(ranAt - queuedAt)} ms)`);
  });

  test('a delayed job queued late in a long transaction is announced by the clock when it was queued, not when the transaction began', async () => {
    const kind = kindOf('long');
    let ranAt = 0;
    const q = queue();
    q.registerHandler(kind, async () => {
      ranAt = performance.now();
    });
    q.start();
    await sleep(50);
    // Queued 1 s into its transaction, due 600 ms after the transaction began (`now()`): due at once.
    await database.db.transaction().execute(async (trx) => {
      await sleep(1000);
      await enqueue(trx, { kind, orgId: null, delayMs: 600 });
    });
    const committed = performance.now();
    await waitFor(() => ranAt > 0, 'the job', 10_000);
    assert.ok(
      ranAt - committed < 500,
      `ran ${Math.round(ranAt - committed)} ms after the commit, not 600 ms after it as the transaction's start would have it`,
    );
  });

  test('a job given back by a stopping queue wakes another that handles its kind', async () => {
    const kind = kindOf('handover');
    const ranBy: string[] = [];
    const first = queue();
    const second = queue();
    first.registerHandler(kind, async (_job, ctx) => {
      ranBy.push('first');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      throw ctx.signal.reason;
    });
    first.start();
    await sleep(50);
    await enqueue(database.db, { kind, orgId: null });
    await waitFor(() => ranBy.length === 1, 'the first queue runs the job', 10_000);
    second.registerHandler(kind, async () => void ranBy.push('second'));
    second.start();
    await sleep(100);
    await first.stop();
    await waitFor(() => ranBy.length === 2, 'the second queue, woken by the job given back', 10_000);
    assert.deepEqual(ranBy, ['first', 'second']);
  });
});

describe("the service's two queues are woken: no poll for ten minutes, and a change's mail and webhook go out at once", () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let receiver: Receiver;
  before(async () => {
    smtp = await startSmtp();
    receiver = await startReceiver();
    server = await startServer({ SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE: 'true', JOBS_POLL_MS: String(NEVER_POLL.pollMs) });
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    await smtp?.close();
  });

  test("a user created: the invitation (the main queue) and user.created (the outbound webhooks' queue)", async () => {
    const org = await createOrg(server);
    const endpoint = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, {
      key: org.key,
      body: { url: receiver.url, events: ['user.created'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    await sleep(200); // both queues' first claims, at start, are over: they sleep now
    const email = `woken-${randomUUID().slice(0, 8)}@example.test`;
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email, name: 'Woken' } });
    assert.equal(created.status, 201, created.text);
    await waitFor(() => receiver.received.find((r) => r.json.type === 'user.created' && r.json.data.email === email), 'user.created delivered', 10_000);
    await smtp.waitFor(email, 1, { timeoutMs: 10_000 });
  });
});

describe('job wakeups on PostgreSQL: several instances', async () => {
  const available = await postgresAvailable();
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  const stores: Database[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  const instance = async () => {
    const d = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
    stores.push(d);
    const w = await listenForJobs(d);
    const q = createJobQueue({ db: d.db, logger: silent, wakeups: w, options: NEVER_POLL });
    closers.push(
      () => q.stop(),
      () => w.close(),
    );
    return { d, q };
  };
  before(async () => {
    if (!available) return;
    scratch = await scratchDatabase();
    const d = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
    stores.push(d);
    await migrate(d);
  });
  after(async () => {
    for (const c of closers) await c();
    for (const d of stores) await d.close();
    if (available) await scratch.drop();
  });

  test("a job queued by one instance wakes the other's queue; a listening connection the server ends is opened again", {
    skip: !available && NEEDS_POSTGRES,
  }, async () => {
    const kind = kindOf('across');
    const runs: number[] = [];
    const queuing = await instance();
    const working = await instance();
    working.q.registerHandler<{ n: number }>(kind, async (job) => void runs.push(job.payload.n));
    working.q.start();
    await sleep(100);
    await enqueue(queuing.d.db, { kind, orgId: null, payload: { n: 1 } });
    await waitFor(() => runs.length === 1, 'the other instance woken', 10_000);

    // The server ends every listening session (a failover, an administrator); each instance opens
    // its own again within a second or so and listens again. Counted by pid: a terminated backend
    // stays in pg_stat_activity for a moment, and counting it as listening again let the job below
    // be queued before either instance listened (its notification lost; these queues never poll).
    // Idle: the LISTEN has finished, so it is in effect.
    const listeners = async () =>
      (
        await sql<{
          pid: number;
        }>`select pid from pg_stat_activity where datname = current_database() and state = 'idle' and query = ${`LISTEN ${JOBS_CHANNEL}`}`.execute(queuing.d.db)
      ).rows.map((r) => r.pid);
    const ended = await listeners();
    assert.equal(ended.length, 2);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where pid = any(${ended}::int[])`.execute(queuing.d.db);
    await waitFor(async () => (await listeners()).filter((pid) => !ended.includes(pid)).length === 2 || undefined, 'both listening again', 15_000);
    await enqueue(queuing.d.db, { kind, orgId: null, payload: { n: 2 } });
    await waitFor(() => runs.length === 2, 'woken after the reconnection', 10_000);
    assert.deepEqual(runs, [1, 2]);
  });

  test('a database closed while its link has stopped forwarding closes within seconds, its listening connection dropped', {
    skip: !available && NEEDS_POSTGRES,
  }, async () => {
    const link = await scratchBehindProxy();
    try {
      const d = await openDatabase({ databaseUrl: link.url, dataDir: 'unused' });
      await migrate(d);
      const wakeups = await listenForJobs(d);
      link.proxy.stall();
      const started = performance.now();
      wakeups.close();
      await d.close();
      const ms = performance.now() - started;
      // Before: close() waited for ever for the server's goodbye on the listening connection.
      assert.ok(ms < 5000, `closed in ${Math.round(ms)} ms`);
    } finally {
      link.proxy.restore();
      await link.close();
    }
  });
});
