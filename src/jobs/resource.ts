// A background job as the API answers it: the one place a jobs row becomes the resource.
import type { JobRow, JobState } from '../store/schema.ts';

export interface Job {
  jobId: string;
  kind: string;
  state: JobState;
  createdAt: string;
  /** When it first ran. */
  startedAt: string | null;
  finishedAt: string | null;
  progress: { done: number | null; total: number | null };
  /** Why the last attempt failed (kept while a retry waits). */
  error: string | null;
}

export const toJob = (r: JobRow): Job => ({
  jobId: r.id,
  kind: r.kind,
  state: r.state,
  createdAt: r.created_at.toISOString(),
  startedAt: r.started_at?.toISOString() ?? null,
  finishedAt: r.finished_at?.toISOString() ?? null,
  progress: { done: r.progress_done, total: r.progress_total },
  error: r.error,
});
