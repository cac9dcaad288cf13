// The Google job kinds, and the queue's `enqueue` as the Google services take it (passed in).
import type { Db } from '../store/db.ts';

/** A job as the queue answers it when one is written (src/jobs/queue.ts's `enqueue`). */
export interface QueuedJob {
  jobId: string;
  kind: string;
  state: string;
  createdAt: Date;
}

export type Enqueue = (trx: Db, request: { kind: string; orgId: string; payload?: unknown; dedupeKey?: string; runAfter?: Date }) => Promise<QueuedJob>;

export const JOB_KINDS = { sync: 'google.sync', push: 'google.push' } as const;

