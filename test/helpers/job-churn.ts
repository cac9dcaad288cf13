// Jobs through the queue's whole life in the real repository (queued, claimed, succeeded, purged),
// 50 at a time: the churn the embedded database's upkeep (src/upkeep/upkeep.ts) has to keep from
// growing the `jobs` table. The queue keeps finished jobs for 30 days (jobs/queue.ts `retentionMs`);
// here they go at once. test/store-upkeep.test.ts and `npm run bench:upkeep` use it.
import { jobsRepo } from '../../src/store/repositories/jobs.ts';
import type { Db } from '../../src/store/database.ts';

/** Sends `count` jobs (a multiple of 50) of `kinds`, in turn, through their life; `after(done)` runs after each 50. */
export async function churnJobs(db: Db, count: number, kinds: string[], after?: (done: number) => Promise<void>): Promise<void> {
  for (let done = 50; done <= count; done += 50) {
    for (let i = 0; i < 50; i++) await jobsRepo.insert(db, { kind: kinds[i % kinds.length]!, orgId: null, payload: { n: done + i } });
    const { token, rows } = await jobsRepo.claim(db, { kinds, limit: 50, leaseMs: 60_000 });
    for (const job of rows) await jobsRepo.succeed(db, job.id, token);
    await jobsRepo.purgeFinished(db, 0);
    await after?.(done);
  }
}
