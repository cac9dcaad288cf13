// Finished jobs are kept 30 days (a job's record answers GET …/jobs/{jobId} and the staff's
// questions), then purged by the worker; queued and running jobs are never purged, however old.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { createLogger } from '../src/log.ts';
import { createJobQueue, DEFAULT_QUEUE_OPTIONS, enqueue, type JobQueue } from '../src/jobs/queue.ts';
import { migratedSnapshot } from './helpers/snapshot.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { waitFor } from './helpers/wait.ts';

const DAY = 86_400_000;
let database: Database;
let queue: JobQueue | undefined;

before(async () => {
  const url = ON_POSTGRES ? process.env.DATABASE_URL! : 'memory://';
  database = await openDatabase({ databaseUrl: url, dataDir: 'unused', snapshot: url === 'memory://' ? await migratedSnapshot() : undefined });
  await migrate(database);
});
after(async () => {
  await queue?.stop();
  await database.close();
});

test('the worker purges jobs that finished more than 30 days ago, and keeps the rest', async () => {
  assert.equal(DEFAULT_QUEUE_OPTIONS.retentionMs, 30 * DAY, 'the documented retention');
  const kind = `test.purge.${randomUUID().slice(0, 8)}`;
  const { db } = database;
  const made = await db.transaction().execute(async (trx) => {
    const ids: Record<string, string> = {};
    for (const name of ['succeededLongAgo', 'failedLongAgo', 'succeededRecently', 'queuedLongAgo']) {
      ids[name] = (await enqueue(trx, { kind, orgId: null, payload: { name } })).jobId;
    }
    return ids;
  });
  const ago = (days: number) => sql<Date>`now() - make_interval(days => ${days})`;
  const finish = (id: string, state: 'succeeded' | 'failed', days: number) =>
    db
      .updateTable('jobs')
      .set({ state, started_at: ago(days), finished_at: ago(days) })
      .where('id', '=', id)
      .execute();
  await finish(made.succeededLongAgo!, 'succeeded', 31);
  await finish(made.failedLongAgo!, 'failed', 45);
  await finish(made.succeededRecently!, 'succeeded', 29);
  await sql`update jobs set created_at = now() - interval '60 days', run_after = now() - interval '60 days' where id = ${made.queuedLongAgo!}`.execute(db);

  // A worker with a handler for another kind only: it claims nothing of ours, and purges on its first round.
  queue = createJobQueue({ db, logger: createLogger('silent', false), options: { pollMs: 20 } });
  queue.registerHandler(`${kind}.other`, async () => {});
  queue.start();
  const left = async () => (await db.selectFrom('jobs').select('id').where('kind', '=', kind).execute()).map((r) => r.id);
  await waitFor(async () => !(await left()).includes(made.succeededLongAgo!) || undefined, 'the purge');
  assert.deepEqual((await left()).sort(), [made.succeededRecently!, made.queuedLongAgo!].sort());
});
