// The one scheduler of connected services: every tick, in one transaction, each schedule claims
// the orgs it has work for (the claim moves the org's mark in the same statement, with SKIP LOCKED,
// so several instances queue each job once) and a job is queued for each. Every directory
// connector's sync is a schedule (syncSchedule); so is the Gmail push that follows changes
// (google/jobs.ts). A new directory brings its connector and nothing else.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { enqueue, type JobQueue } from '../jobs/queue.ts';
import { every } from '../lib/every.ts';
import type { AnyConnector } from './connector.ts';
import { syncJobKind } from './jobs.ts';

export interface Schedule {
  /** The job queued for each org claimed. */
  kind: string;
  dedupeKey: string;
  /** The orgs due now, marked as queued in the same statement. */
  claim(tx: Db): Promise<string[]>;
}

/** A directory's scheduled sync: every `syncIntervalS` for each org connected to it. */
export const syncSchedule = (connector: AnyConnector): Schedule => ({
  kind: syncJobKind(connector.source),
  dedupeKey: 'sync',
  claim: (tx) => connector.claimDue(tx),
});

/** How often to look: often enough for the shortest interval, at most every 10 s. */
export const tickMsFor = (connectors: readonly AnyConnector[]) => Math.min(10_000, ...connectors.map((c) => c.syncIntervalS * 1000));

/** Every `tickMs`, queues what each schedule claims; answers the stop function. */
export function startScheduler(deps: { db: Db; queue: JobQueue; logger: Logger; schedules: readonly Schedule[]; tickMs: number }): () => Promise<void> {
  const tick = async () => {
    const queued = await deps.db.transaction().execute(async (tx) => {
      let n = 0;
      for (const schedule of deps.schedules) {
        for (const orgId of await schedule.claim(tx)) {
          await enqueue(tx, { kind: schedule.kind, orgId, dedupeKey: schedule.dedupeKey });
          n++;
        }
      }
      return n;
    });
    if (queued > 0) deps.queue.poke();
  };
  return every(deps.tickMs, tick, { logger: deps.logger, message: 'scheduler: tick failed; the next one tries again' });
}
