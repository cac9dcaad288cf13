// The Google job kinds (the sync's is every directory's `<source>.sync`, src/directory/jobs.ts), and
// the queue's `enqueue` as the Google services take it (passed in).
import type { enqueue } from '../jobs/queue.ts';
import { syncJobKind } from '../directory/module.ts';

export type { EnqueuedJob } from '../jobs/queue.ts';
export type Enqueue = typeof enqueue;

export const JOB_KINDS = { sync: syncJobKind('google'), push: 'google.push' } as const;
