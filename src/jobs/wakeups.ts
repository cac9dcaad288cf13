// Wakes the job queues when a job becomes due, instead of leaving it to their next poll. A trigger
// on `jobs` (migration 143) sends `NOTIFY sigsvc_jobs, '<kind> <ms until due>'` for every row that is
// queued: a new job, a retry, a job given back. PostgreSQL delivers it when the transaction
// commits, to every instance that listens, so a queue that handles the kind claims the job at once
// (or when its delay has passed, by a timer), and the polls only catch what nothing announces (a
// crashed instance's lease that expires, a notification lost while a listening connection was
// reopened). An idle embedded service ran ~5 claims a second before (BENCHMARKS.md).
import type { Database } from '../store/database.ts';

export const JOBS_CHANNEL = 'sigsvc_jobs';

/** Delays past this are left to the polls (a timer per queue for a job due in days is not worth it). */
const LONGEST_TIMER_MS = 3600_000;

export interface JobWakeups {
  /**
   * Calls `poke` when a job of a kind that `handles` accepts is due: at once, or once its delay
   * has passed. Returns the function that stops it.
   */
  subscribe(handles: (kind: string) => boolean, poke: () => void): () => void;
  close(): void;
}

/** Due times held per queue at most; past them, the polls find the jobs. */
const MOST_PENDING = 1000;

interface Subscriber {
  handles: (kind: string) => boolean;
  poke: () => void;
  /** When the delayed jobs announced are due (performance.now()), earliest first. */
  pending: number[];
  timer?: NodeJS.Timeout;
}

/** Reads a notification's payload; undefined when it is not one of the trigger's. */
export function parseWakeup(payload: string): { kind: string; dueInMs: number } | undefined {
  const space = payload.lastIndexOf(' ');
  const dueInMs = Number(payload.slice(space + 1));
  if (space <= 0 || !Number.isFinite(dueInMs) || dueInMs < 0) return undefined;
  return { kind: payload.slice(0, space), dueInMs };
}

export async function listenForJobs(database: Pick<Database, 'listen'>): Promise<JobWakeups> {
  const subscribers = new Set<Subscriber>();
  // One timer per queue, for the earliest delayed job announced; when it fires it pokes the queue
  // and is set again for the next one still ahead.
  const arm = (s: Subscriber) => {
    clearTimeout(s.timer);
    s.timer = undefined;
    const next = s.pending[0];
    if (next === undefined) return;
    s.timer = setTimeout(
      () => {
        // A timer may fire up to ~1 ms before performance.now() reaches its time: due within that
        // counts as due (else every delayed job would poke twice, a claim each).
        const now = performance.now() + 1;
        let due = 0;
        while (s.pending.length > 0 && s.pending[0]! <= now) {
          s.pending.shift();
          due++;
        }
        if (due > 0) s.poke();
        arm(s);
      },
      Math.max(0, next - performance.now()),
    ).unref();
  };
  const wakeAt = (s: Subscriber, dueInMs: number) => {
    if (dueInMs === 0) return s.poke();
    if (dueInMs > LONGEST_TIMER_MS) return;
    const at = performance.now() + dueInMs;
    // Full: the latest due time goes (its job is found by a poll), unless the new one is later still.
    if (s.pending.length >= MOST_PENDING) {
      if (s.pending.at(-1)! <= at) return;
      s.pending.pop();
    }
    let i = s.pending.length;
    while (i > 0 && s.pending[i - 1]! > at) i--;
    s.pending.splice(i, 0, at);
    if (i === 0) arm(s);
  };
  const stop = await database.listen(JOBS_CHANNEL, (payload) => {
    const wakeup = parseWakeup(payload);
    if (!wakeup) return;
    for (const s of subscribers) if (s.handles(wakeup.kind)) wakeAt(s, wakeup.dueInMs);
  });
  return {
    subscribe(handles, poke) {
      const s: Subscriber = { handles, poke, pending: [] };
      subscribers.add(s);
      return () => {
        clearTimeout(s.timer);
        subscribers.delete(s);
      };
    },
    close() {
      for (const s of subscribers) clearTimeout(s.timer);
      subscribers.clear();
      stop();
    },
  };
}
