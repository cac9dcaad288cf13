// The Entra sync on the durable queue (src/jobs/): the `microsoft.sync` kind, and the scheduler
// that queues one per connected org every MICROSOFT_SYNC_INTERVAL_S (the claim moves the org's next
// time in the same statement, so several instances queue it once).
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { microsoftRepo } from '../store/repositories/microsoft.ts';
import { enqueue, JobFailedError, RetryableJobError, type JobQueue, type JobRegistry } from '../jobs/queue.ts';
import { SecretError } from '../secrets/module.ts';
import { MicrosoftError } from './graph.ts';
import { SYNC_JOB, type MicrosoftService } from './service.ts';
import { every } from '../lib/every.ts';

/** A throttled or unreachable Microsoft is retried later (Retry-After when it gave one); the rest fails with its message. */
export function toJobError(err: unknown): unknown {
  if (err instanceof MicrosoftError) {
    return err.retryable ? new RetryableJobError(err.message, { retryAfterMs: err.retryAfterMs, cause: err }) : new JobFailedError(err.message, { cause: err });
  }
  if (err instanceof SecretError) return new JobFailedError(err.message, { cause: err });
  return err;
}

export function registerMicrosoftJobs(queue: JobRegistry, microsoft: MicrosoftService): void {
  queue.registerHandler(SYNC_JOB, async (job, ctx) => {
    if (!job.orgId) return;
    try {
      await microsoft.sync(job.orgId, { signal: ctx.signal, progress: (done, total) => void ctx.progress(done, total), correlationId: `job:${job.jobId}` });
    } catch (err) {
      throw toJobError(err);
    }
  });
}

/** Queues the syncs that are due, every `tickMs`; answers the stop function. */
export function startMicrosoftScheduler(deps: { db: Db; queue: JobQueue; logger: Logger; syncIntervalS: number; tickMs: number }): () => Promise<void> {
  const tick = async () => {
    const queued = await deps.db.transaction().execute(async (tx) => {
      const due = await microsoftRepo.claimDue(tx, deps.syncIntervalS);
      for (const orgId of due) await enqueue(tx, { kind: SYNC_JOB, orgId, dedupeKey: 'sync' });
      return due.length;
    });
    if (queued > 0) deps.queue.poke();
  };
  return every(deps.tickMs, tick, { logger: deps.logger, message: 'microsoft scheduler: tick failed; the next one tries again' });
}
