// A deadline for outbound work done inside a request (a directory's dry run): each call already has
// its own timeout, but retries, paging and pacing add up to minutes, which a request must not hold.
import { AppError } from '../kernel/errors.ts';

/** How long a dry run of a directory sync may read the directory before answering 503. */
export const DRY_RUN_DEADLINE_MS = 60_000;

/**
 * Runs `work` with a signal that aborts after `ms`; work that failed because of it becomes a 503
 * naming `what`. A plain timer, cleared when the work ends (AbortSignal.timeout() would keep its
 * timer to the end).
 */
export async function withinDeadline<T>(ms: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`deadline of ${ms} ms`)), ms);
  try {
    return await work(abort.signal);
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    throw new AppError('SERVICE_UNAVAILABLE', `${what} did not answer within ${Math.ceil(ms / 1000)} s; start a sync instead (it runs as a job).`, {
      details: { retryAfterS: 60 },
      internal: err,
    });
  } finally {
    clearTimeout(timer);
  }
}
