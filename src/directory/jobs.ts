// The jobs of connected services on the durable queue (src/jobs/): one sync kind per directory
// connector, `<source>.sync` (`google.sync`, `microsoft.sync`, as stored in `jobs.kind`), all run
// by the same handler; and the wrapper every connector job runs in (the Gmail push's too), which
// converts failures in one place (errors.ts).
import type { Db } from '../store/db.ts';
import type { DirectorySource } from '../store/schema.ts';
import { directoryRepo } from '../store/repositories/directory.ts';
import { RetryableJobError, type Job, type JobContext, type JobRegistry } from '../jobs/queue.ts';
import type { AnyConnector } from './connector.ts';
import { toJobError } from './errors.ts';
import type { DirectorySync } from './sync.ts';

/** The job kind of a directory's sync. */
export const syncJobKind = (source: DirectorySource) => `${source}.sync`;

/**
 * Registers a job kind of an org's connection, queued with `dedupeKey`. A failure becomes what
 * the queue should make of it (toJobError); one that would be retried, or a run stopped with its
 * instance, ends quietly when a job of the same kind is queued for the org already: that one does
 * all this one would do again (and the queue's dedupe index allows no second queued twin).
 */
export function registerConnectorJob<P>(
  deps: { queue: JobRegistry; db: Db },
  kind: string,
  dedupeKey: string,
  run: (orgId: string, job: Job<P>, ctx: JobContext) => Promise<unknown>,
): void {
  deps.queue.registerHandler<P>(kind, async (job, ctx) => {
    const orgId = job.orgId;
    if (!orgId) return;
    try {
      await run(orgId, job, ctx);
    } catch (err) {
      const mapped = toJobError(err);
      if ((mapped instanceof RetryableJobError || ctx.signal.aborted) && (await directoryRepo.queuedTwin(deps.db, kind, orgId, dedupeKey, job.jobId))) return;
      throw mapped;
    }
  });
}

/** One handler for every directory's sync job. */
export function registerDirectorySyncJobs(deps: { queue: JobRegistry; db: Db; sync: DirectorySync; connectors: readonly AnyConnector[] }): void {
  for (const connector of deps.connectors) {
    registerConnectorJob(deps, syncJobKind(connector.source), 'sync', (orgId, job, ctx) =>
      deps.sync.sync(connector, orgId, { signal: ctx.signal, progress: ctx.progress, correlationId: `job:${job.jobId}` }),
    );
  }
}
