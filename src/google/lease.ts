// One sync and one push of an org at a time, across instances: a run holds the org's lease for its
// kind (a column pair of google_integrations), renewed while it runs. Two pushes of one org at once
// would both send what the other is sending; a run that finds the lease held queues itself again a
// little later (the queued job of the same kind, if any, stands for it) and ends.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { JOB_KINDS, type Enqueue } from './kinds.ts';

/** How long a run's lease holds without renewal (renewed every third of it). */
const LEASE_S = 60;
/** When a run finds another one of the org under way, it queues itself again this much later. */
const BUSY_RETRY_MS = 3000;

export function createGoogleLease(deps: { db: Db; enqueue: Enqueue; clock: () => Date; busyRetryMs?: number | undefined }) {
  const { db } = deps;
  const busyRetryMs = deps.busyRetryMs ?? BUSY_RETRY_MS;
  return {
    /** Runs `work` holding the org's lease for this kind of run; null when another run holds it. */
    async exclusively<T>(orgId: string, what: 'sync' | 'push', work: () => Promise<T>): Promise<T | null> {
      const token = randomUUID();
      if (!(await googleRepo.lease(db, orgId, what, token, LEASE_S))) {
        await deps.enqueue(db, { kind: JOB_KINDS[what], orgId, dedupeKey: what, delayMs: busyRetryMs });
        return null;
      }
      const renew = setInterval(() => void googleRepo.lease(db, orgId, what, token, LEASE_S).catch(() => {}), (LEASE_S * 1000) / 3);
      renew.unref();
      try {
        return await work();
      } finally {
        clearInterval(renew);
        await googleRepo.release(db, orgId, what, token).catch(() => {});
      }
    },
  };
}

export type GoogleLease = ReturnType<typeof createGoogleLease>;
