// The SQL of the job queue (src/jobs/). Times are the database's own (`now()`), so instances whose
// clocks disagree still agree on leases and on when a job is due. Every write of a running job names
// the claim's lease token: an instance that lost its lease (it stalled past it and another instance
// took the job) changes nothing any more.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { JobRow } from '../schema.ts';

export interface NewJob {
  kind: string;
  orgId: string | null;
  payload: unknown;
  runAfter?: Date | undefined;
  /** Due this long after the database's now (the clock the queue claims by). */
  delayMs?: number | undefined;
  dedupeKey?: string | undefined;
}

const NIL = '00000000-0000-0000-0000-000000000000';
const ms = (n: number) => sql`(${Math.max(0, Math.round(n))}::double precision * interval '1 millisecond')`;

export const jobsRepo = {
  /**
   * Inserts a job; with a dedupe key, a queued job of the same kind, org and key is returned instead
   * of a second one (the partial unique index `jobs_dedupe` decides, also between transactions).
   */
  async insert(db: Db, job: NewJob): Promise<{ row: JobRow; deduplicated: boolean }> {
    const id = randomUUID();
    const payload = JSON.stringify(job.payload ?? {});
    const runAfter = job.runAfter ? sql`${job.runAfter.toISOString()}::timestamptz` : job.delayMs ? sql`now() + ${ms(job.delayMs)}` : sql`now()`;
    if (job.dedupeKey === undefined) {
      const row = await sql<JobRow>`
        insert into jobs (id, kind, org_id, payload, run_after)
        values (${id}, ${job.kind}, ${job.orgId}, ${payload}::jsonb, ${runAfter})
        returning *`.execute(db);
      return { row: row.rows[0]!, deduplicated: false };
    }
    // The queued job that blocks the insert may be claimed before we read it: then insert again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await sql<JobRow>`
        insert into jobs (id, kind, org_id, payload, run_after, dedupe_key)
        values (${id}, ${job.kind}, ${job.orgId}, ${payload}::jsonb, ${runAfter}, ${job.dedupeKey})
        on conflict (kind, (coalesce(org_id, '00000000-0000-0000-0000-000000000000'::uuid)), dedupe_key)
          where dedupe_key is not null and state = 'queued'
        do nothing
        returning *`.execute(db);
      if (inserted.rows[0]) return { row: inserted.rows[0], deduplicated: false };
      let existing = db.selectFrom('jobs').selectAll().where('kind', '=', job.kind).where('dedupe_key', '=', job.dedupeKey).where('state', '=', 'queued');
      existing = job.orgId === null ? existing.where('org_id', 'is', null) : existing.where('org_id', '=', job.orgId);
      const row = await existing.executeTakeFirst();
      if (row) return { row, deduplicated: true };
    }
    throw new Error(`could not enqueue a ${job.kind} job: its dedupe key kept changing hands`);
  },

  async find(db: Db, orgId: string, jobId: string): Promise<JobRow | undefined> {
    return db.selectFrom('jobs').selectAll().where('org_id', '=', orgId).where('id', '=', jobId).executeTakeFirst();
  },

  /**
   * Claims up to `limit` jobs of the given kinds: queued ones that are due, and running ones whose
   * lease expired (their instance crashed or stalled). Rows another instance is claiming at the same
   * moment are skipped, not waited for. Each claim counts an attempt.
   *
   * Round-robin across orgs (DECISIONS wave 3, "Fair queue"): due jobs are ranked within their org
   * (oldest first) and claimed by that rank first, and among equal ranks the org whose job was
   * claimed longest ago (job_turns) goes first. So every org's next job goes before any org's
   * one after it, and an org with an empty backlog waits for one worker slot at most, however long
   * another org's backlog. Stage-wide jobs (no org) take turns as one org of their own.
   */
  async claim(db: Db, options: { kinds: string[]; limit: number; leaseMs: number }): Promise<{ token: string; rows: JobRow[] }> {
    const token = randomUUID();
    if (options.kinds.length === 0 || options.limit <= 0) return { token, rows: [] };
    const kinds = sql.join(options.kinds.map((k) => sql`${k}`));
    const due = sql`(state = 'queued' and run_after <= now()) or (state = 'running' and lease_until < now())`;
    // Ranked in a CTE (a window function may not share a query level with FOR UPDATE); the rows are
    // then locked in turn order, skipping those another instance holds, and the orgs' turns noted.
    const result = await sql<JobRow>`
      with due as (
        select id, run_after, created_at, coalesce(org_id, ${NIL}::uuid) as org_key,
          row_number() over (partition by coalesce(org_id, ${NIL}::uuid) order by run_after, created_at) as rank
        from jobs
        where kind in (${kinds}) and (${due})
      ), picked as (
        select j.id, due.org_key from jobs j
        join due on due.id = j.id
        left join job_turns t on t.org_key = due.org_key
        order by due.rank, t.claimed_at nulls first, due.run_after, due.created_at
        limit ${options.limit}
        for update of j skip locked
      ), turns as (
        insert into job_turns (org_key, claimed_at)
        select distinct org_key, now() from picked
        on conflict (org_key) do update set claimed_at = excluded.claimed_at
      )
      update jobs set
        state = 'running',
        attempts = attempts + 1,
        lease_token = ${token},
        lease_until = now() + ${ms(options.leaseMs)},
        started_at = coalesce(started_at, now())
      where id in (select id from picked) and (${due})
      returning *`.execute(db);
    return { token, rows: result.rows };
  },

  /**
   * Puts a running job back in the queue until `delayMs` from now, its attempt not counted: a job
   * that may not run yet (its org's mail cap for this hour is reached), not one that failed.
   */
  async defer(db: Db, jobId: string, token: string, delayMs: number): Promise<boolean> {
    const r = await db
      .updateTable('jobs')
      .set({
        state: 'queued',
        run_after: sql`now() + ${ms(delayMs)}`,
        lease_until: null,
        lease_token: null,
        attempts: sql`greatest(attempts - 1, 0)`,
        dedupe_key: keyUnlessTwinQueued,
      })
      .where('id', '=', jobId)
      .where('lease_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Extends a running job's lease; false when the claim is no longer ours. */
  async renew(db: Db, jobId: string, token: string, leaseMs: number): Promise<boolean> {
    const r = await db
      .updateTable('jobs')
      .set({ lease_until: sql`now() + ${ms(leaseMs)}` })
      .where('id', '=', jobId)
      .where('lease_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  async progress(db: Db, jobId: string, token: string, done: number, total: number): Promise<boolean> {
    const r = await db
      .updateTable('jobs')
      .set({ progress_done: done, progress_total: total })
      .where('id', '=', jobId)
      .where('lease_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** `forgetPayload`: the payload is emptied (a sent mail's links need not outlive it). */
  async succeed(db: Db, jobId: string, token: string, forgetPayload = false): Promise<boolean> {
    return finish(db, jobId, token, { state: 'succeeded', error: null }, forgetPayload);
  },

  async fail(db: Db, jobId: string, token: string, error: string, forgetPayload = false): Promise<boolean> {
    return finish(db, jobId, token, { state: 'failed', error }, forgetPayload);
  },

  /** Back to the queue, due after `delayMs`; the error stays readable meanwhile. */
  async retry(db: Db, jobId: string, token: string, delayMs: number, error: string): Promise<boolean> {
    const r = await db
      .updateTable('jobs')
      .set({ state: 'queued', run_after: sql`now() + ${ms(delayMs)}`, lease_until: null, lease_token: null, error, dedupe_key: keyUnlessTwinQueued })
      .where('id', '=', jobId)
      .where('lease_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Gives a job back at shutdown: due now, and the interrupted attempt does not count. */
  async release(db: Db, jobId: string, token: string): Promise<boolean> {
    const r = await db
      .updateTable('jobs')
      .set({
        state: 'queued',
        run_after: sql`now()`,
        lease_until: null,
        lease_token: null,
        attempts: sql`greatest(attempts - 1, 0)`,
        dedupe_key: keyUnlessTwinQueued,
      })
      .where('id', '=', jobId)
      .where('lease_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Removes jobs that ended before `olderThanMs` ago. */
  async purgeFinished(db: Db, olderThanMs: number): Promise<number> {
    const r = await db
      .deleteFrom('jobs')
      .where('state', 'in', ['succeeded', 'failed'])
      .where('finished_at', '<', sql<Date>`now() - ${ms(olderThanMs)}`)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },
};

// A job going back to the queue keeps its dedupe key, unless a job of the same kind, org and key
// was queued while it ran (allowed: a running job does not absorb new requests). Two queued jobs
// cannot share a key (the partial unique index jobs_dedupe), so the returning one drops its key and
// both run: at least once, as every job.
const keyUnlessTwinQueued = sql<string | null>`case when exists (
  select 1 from jobs twin
  where twin.kind = jobs.kind and twin.dedupe_key = jobs.dedupe_key and twin.state = 'queued' and twin.id <> jobs.id
    and coalesce(twin.org_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(jobs.org_id, '00000000-0000-0000-0000-000000000000'::uuid)
) then null else jobs.dedupe_key end`;

async function finish(
  db: Db,
  jobId: string,
  token: string,
  end: { state: 'succeeded' | 'failed'; error: string | null },
  forgetPayload: boolean,
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ ...end, finished_at: sql`now()`, lease_until: null, lease_token: null, ...(forgetPayload ? { payload: '{}' } : {}) })
    .where('id', '=', jobId)
    .where('lease_token', '=', token)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
