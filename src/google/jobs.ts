// The Gmail push on the durable queue (src/jobs/): `google.push`, a push of every user's signature,
// queued by POST …/google/push, a new connection, a sync that ends, and whenever a user, a template
// or the org changed since the last one was queued (pushSchedule, run by src/directory/scheduler.ts
// beside every directory's sync). The sync, `google.sync`, is every directory's (src/directory/jobs.ts).
//
// Why the scheduler looks for changes instead of each write queueing a push in its transaction:
// every path that changes a user (the API, the CLI, a sync, a sign-in step), a template or the org
// would have to know about Gmail; the newest `updated_at` of the org's users, templates and org row,
// compared in the database with the last one seen, catches them all, and survives restarts (the
// mark moves in the same statement that claims the org, and the push job in the same transaction).
// A push sends only what differs from what was last deployed, so the push that follows any change
// touches exactly the users whose signature it changed.
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import type { JobRegistry } from '../jobs/queue.ts';
import { registerConnectorJob } from '../directory/module.ts';
import type { Schedule } from '../directory/module.ts';
import type { GoogleRuns } from './runs.ts';
import { JOB_KINDS } from './kinds.ts';

export function registerGooglePushJob(deps: { queue: JobRegistry; db: Db; runs: GoogleRuns }): void {
  registerConnectorJob<{ userIds?: string[] }>(deps, JOB_KINDS.push, 'push', (orgId, job, ctx) =>
    deps.runs.push(orgId, job.payload?.userIds, { signal: ctx.signal, progress: ctx.progress }),
  );
}

/**
 * A push for each org with a change since the last one was queued; a campaign that started or
 * ended by the clock's `now` is such a change (its banner comes or goes), so the push follows it
 * within a tick of the scheduler.
 */
export const pushSchedule = (clock: () => Date): Schedule => ({ kind: JOB_KINDS.push, dedupeKey: 'push', claim: (tx) => googleRepo.claimChanged(tx, clock()) });
