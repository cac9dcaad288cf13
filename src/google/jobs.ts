// The Google jobs on the durable queue (src/jobs/), and the scheduler that queues them on its own:
// - `google.sync`: a directory sync, queued by POST …/google/sync, a new connection, and every
//   GOOGLE_SYNC_INTERVAL_S per org;
// - `google.push`: a push of every user's signature, queued by POST …/google/push, a new
//   connection, and whenever a user, a template or the org changed since the last one was queued.
//
// Why the scheduler looks for changes instead of each write queueing a push in its transaction:
// every path that changes a user (the API, the CLI, a sync, a sign-in step), a template or the org
// would have to know about Gmail; the newest `updated_at` of the org's users, templates and org row,
// compared in the database with the last one seen, catches them all, and survives restarts (the
// mark moves in the same statement that claims the org, and the push job in the same transaction).
// A push sends only what differs from what was last deployed, so the push that follows any change
// touches exactly the users whose signature it changed.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { enqueue, JobFailedError, RetryableJobError, type JobQueue, type JobRegistry } from '../jobs/queue.ts';
import { AppError } from '../kernel/errors.ts';
import { SecretError } from '../secrets/module.ts';
import { GoogleError } from './errors.ts';
import type { GoogleRuns } from './runs.ts';
import { JOB_KINDS } from './kinds.ts';
import { every } from '../lib/every.ts';

/** What the queue should make of a failure: retry later (429/5xx), or fail with a message for the admins. */
export function toJobError(err: unknown): unknown {
  if (err instanceof GoogleError) {
    return err.retryable ? new RetryableJobError(err.message, { retryAfterMs: err.retryAfterMs, cause: err }) : new JobFailedError(err.message, { cause: err });
  }
  if (err instanceof SecretError) return new JobFailedError(err.message, { cause: err });
  if (err instanceof AppError && err.status < 500) return new JobFailedError(err.message, { cause: err });
  return err;
}

export function registerGoogleJobs(queue: JobRegistry, runs: GoogleRuns, db: Db): void {
  for (const what of ['sync', 'push'] as const) {
    queue.registerHandler<{ userIds?: string[] }>(JOB_KINDS[what], async (job, ctx) => {
      const orgId = job.orgId;
      if (!orgId) return;
      try {
        if (what === 'sync') await runs.sync(orgId, { signal: ctx.signal, progress: ctx.progress });
        else await runs.push(orgId, job.payload?.userIds, { signal: ctx.signal, progress: ctx.progress });
      } catch (err) {
        const mapped = toJobError(err);
        // A job of the same kind already queued for the org does all this one would do again. (And
        // the queue cannot put this one back beside it: its dedupe index allows one queued twin.)
        if ((mapped instanceof RetryableJobError || ctx.signal.aborted) && (await googleRepo.queuedTwin(db, JOB_KINDS[what], orgId, what, job.jobId))) return;
        throw mapped;
      }
    });
  }
}

/** Every `tickMs`, queues the syncs that are due and a push for each org that changed. Answers the stop function. */
export function startGoogleScheduler(deps: { db: Db; queue: JobQueue; logger: Logger; syncIntervalS: number; tickMs: number }): () => Promise<void> {
  const { db } = deps;
  const tick = async () => {
    const queued = await db.transaction().execute(async (tx) => {
      const syncs = await googleRepo.claimDueSyncs(tx, deps.syncIntervalS);
      for (const orgId of syncs) await enqueue(tx, { kind: JOB_KINDS.sync, orgId, dedupeKey: 'sync' });
      const pushes = await googleRepo.claimChanged(tx);
      for (const orgId of pushes) await enqueue(tx, { kind: JOB_KINDS.push, orgId, dedupeKey: 'push' });
      return syncs.length + pushes.length;
    });
    if (queued > 0) deps.queue.poke();
  };
  return every(deps.tickMs, tick, { logger: deps.logger, message: 'google scheduler: tick failed; the next one tries again' });
}
