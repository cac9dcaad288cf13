// The one durable job queue (docs/operations.md, "Background jobs"): mail, directory
// syncs and signature pushes run from it.
//
// - `enqueue(trx, {kind, orgId, payload, runAfter?, dedupeKey?})` writes a job inside the caller's
//   transaction: the job exists exactly when the change that causes it committed.
// - `queue.registerHandler(kind, async (job, ctx) => …, {maxAttempts?})` says how to run a kind;
//   an instance claims only the kinds it has handlers for.
// - A worker loop claims due jobs with `FOR UPDATE SKIP LOCKED` under a lease (several instances
//   share the work, none runs a job another holds), renews the lease while the handler runs, and
//   ends the job: succeeded; or, on a `RetryableJobError` (or the database being unavailable), back
//   to the queue after an exponential backoff with jitter (or the error's `retryAfterMs`) until
//   `maxAttempts`; any other error fails the job at once (a `JobFailedError`'s message is shown to
//   the org's admins as the job's `error`; other errors show a generic message and go to the log);
//   a `JobDeferredError` puts it back for a while without counting the attempt.
// - Claims go round-robin across orgs (jobsRepo.claim): one org's backlog never holds another's job
//   back by more than one worker slot.
// - A crashed instance's jobs come back when their lease expires: another instance claims them, and
//   the crashed attempt counts. Delivery is therefore at least once: a handler must tolerate running
//   again after it did its work but before the job was marked done.
// - `ctx.progress(done, total)` records progress; `ctx.signal` aborts when the instance stops (the
//   job goes back to the queue, the attempt not counted) or when the lease was lost (another
//   instance has the job now): a long handler should pass it to what it awaits.
//
// Hand-written: the queue libraries for Node (pg-boss, graphile-worker) bring their own schema,
// migrations and connection handling, and none runs on the embedded PGlite store besides a server.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import type { JobRow, JobState } from '../store/schema.ts';
import { jobsRepo } from '../store/repositories/jobs.ts';
import { DatabaseUnavailableError } from '../store/errors.ts';
import type { JobWakeups } from './wakeups.ts';

/** A failure worth another try (a remote service down, a rate limit): the job is retried with backoff. */
export class RetryableJobError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'RetryableJobError';
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A permanent failure whose message is meant for the org's admins (it becomes the job's `error`). */
export class JobFailedError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'JobFailedError';
  }
}

/**
 * Not now: the job goes back to the queue for `delayMs`, its attempt not counted (a mail past its
 * org's hourly cap waits for the next hour rather than fail).
 */
export class JobDeferredError extends Error {
  readonly delayMs: number;
  constructor(message: string, delayMs: number) {
    super(message);
    this.name = 'JobDeferredError';
    this.delayMs = delayMs;
  }
}

export interface Job<P = unknown> {
  jobId: string;
  kind: string;
  orgId: string | null;
  payload: P;
  /** 1 on the first run; counts every claim, crashed ones included. */
  attempt: number;
  createdAt: Date;
}

export interface JobContext {
  /** Aborts when this instance stops or loses the job's lease. */
  signal: AbortSignal;
  /** Records how far the job got (read by `GET …/jobs/{jobId}`). */
  progress(done: number, total: number): Promise<void>;
  logger: Logger;
}

export type JobHandler<P = unknown> = (job: Job<P>, ctx: JobContext) => Promise<void>;

export interface HandlerOptions {
  /** Attempts before a job of this kind fails for good (default: the queue's `maxAttempts`). */
  maxAttempts?: number;
  /** Empty the payload once the job ended (it holds what should not be kept: a mail's one-time link). */
  forgetPayload?: boolean;
}

export type JobOutcome = 'succeeded' | 'retried' | 'failed' | 'released' | 'lost' | 'deferred';

export interface QueueOptions {
  /** Jobs one instance runs at the same time. */
  concurrency: number;
  /** How often an idle worker looks for due jobs. */
  pollMs: number;
  /** How long a claim holds without renewal; renewed every third of it while the handler runs. */
  leaseMs: number;
  /** Backoff of the n-th retry: baseMs · 2^(n-1), at most maxMs, less a random part of up to half. */
  retryBaseMs: number;
  retryMaxMs: number;
  maxAttempts: number;
  /** Finished jobs are deleted this long after they ended. */
  retentionMs: number;
  /** Called once per job run with how it ended (the `/metrics` counter of jobs by kind and outcome). */
  onOutcome?: (kind: string, outcome: JobOutcome) => void;
  /** A number in [0, 1) for the jitter; tests may fix it. */
  random?: () => number;
}

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = {
  concurrency: 4,
  pollMs: 1000,
  leaseMs: 60_000,
  retryBaseMs: 10_000,
  retryMaxMs: 15 * 60_000,
  maxAttempts: 20,
  retentionMs: 30 * 24 * 3600_000,
};

export interface EnqueueRequest {
  kind: string;
  /** null for stage-wide work (mail to staff); the job route shows an org only its own jobs. */
  orgId: string | null;
  payload?: unknown;
  runAfter?: Date;
  /**
   * Due this long from now by the database's clock, which the worker claims by: a delay measured
   * from a service's injected clock (a test's, moved ahead) would land at another time.
   */
  delayMs?: number;
  /** A queued job of the same kind, org and key is not queued twice: enqueue answers that one. */
  dedupeKey?: string;
}

export interface EnqueuedJob {
  jobId: string;
  kind: string;
  state: JobState;
  createdAt: Date;
  /** True when an identical queued job (same dedupe key) was answered instead of a new one. */
  deduplicated: boolean;
}

/** Writes a job in the caller's transaction (or, given the plain db, on its own). */
export async function enqueue(trx: Db, request: EnqueueRequest): Promise<EnqueuedJob> {
  const { row, deduplicated } = await jobsRepo.insert(trx, {
    kind: request.kind,
    orgId: request.orgId,
    payload: request.payload ?? {},
    runAfter: request.runAfter,
    delayMs: request.delayMs,
    dedupeKey: request.dedupeKey,
  });
  return { jobId: row.id, kind: row.kind, state: row.state, createdAt: row.created_at, deduplicated };
}

/** The delay before retry `attempt` (1 = the first retry): exponential, capped, with jitter. */
export function backoffMs(attempt: number, options: Pick<QueueOptions, 'retryBaseMs' | 'retryMaxMs'>, random: () => number = Math.random): number {
  const exp = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  // "Equal jitter": at least half the delay, so retries never bunch at zero, and spread over the rest.
  return Math.round(exp / 2 + (exp / 2) * random());
}

export interface JobQueue {
  registerHandler<P = unknown>(kind: string, handler: JobHandler<P>, options?: HandlerOptions): void;
  /** Starts the worker loop (createDeps does, once every handler is registered). */
  start(): void;
  /** Looks for due jobs now instead of at the next poll (after enqueueing, say). */
  poke(): void;
  /** Stops claiming, aborts running handlers, gives their jobs back, and waits for them (bounded). */
  stop(): Promise<void>;
  /** Jobs this instance is running now. */
  readonly running: number;
}

/** What a module registers its job handlers on (the queue, or core/module.ts's collector). */
export type JobRegistry = Pick<JobQueue, 'registerHandler'>;

const SHUTDOWN = Symbol('shutdown');
const LEASE_LOST = Symbol('lease lost');
const STOP_WAIT_MS = 5000;
const PURGE_EVERY_MS = 3600_000;
const ERROR_MAX_CHARS = 1000;

export function createJobQueue(deps: { db: Db; logger: Logger; options?: Partial<QueueOptions>; wakeups?: JobWakeups | undefined }): JobQueue {
  const { db } = deps;
  const options: QueueOptions = { ...DEFAULT_QUEUE_OPTIONS, ...deps.options };
  const random = options.random ?? Math.random;
  const logger = deps.logger.child({ component: 'jobs' });
  const handlers = new Map<string, { handler: JobHandler<any>; maxAttempts: number; forgetPayload: boolean }>();
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let started = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let wake: AbortController = new AbortController();
  // Set by a poke, cleared before each claim: a poke that comes while a claim runs (the job's
  // transaction committed just after the claim looked) sends the loop round again, not to sleep.
  let poked = false;
  let unsubscribe = () => {};
  // The purge's cadence is elapsed time, as a timer's (the monotonic clock), not a date: the
  // retention itself is judged by the database's now().
  let lastPurge = Number.NEGATIVE_INFINITY;

  const poke = () => {
    poked = true;
    wake.abort();
  };

  async function runJob(row: JobRow, token: string, controller: AbortController): Promise<void> {
    const registered = handlers.get(row.kind)!;
    const job: Job = { jobId: row.id, kind: row.kind, orgId: row.org_id, payload: row.payload, attempt: row.attempts, createdAt: row.created_at };
    const log = logger.child({ jobId: row.id, kind: row.kind, attempt: row.attempts });
    const outcome = (o: JobOutcome) => options.onOutcome?.(row.kind, o);
    if (row.attempts > registered.maxAttempts) {
      // Only a job whose earlier runs all ended with their instance (expired leases) gets here.
      await jobsRepo.fail(db, row.id, token, `Gave up after ${registered.maxAttempts} attempts that did not finish.`, registered.forgetPayload);
      log.error('job failed: its attempts kept ending with their instance (lease expired)');
      outcome('failed');
      return;
    }
    const lost = () => controller.abort(LEASE_LOST);
    const renewEvery = Math.max(50, Math.floor(options.leaseMs / 3));
    const renewal = setInterval(() => {
      jobsRepo.renew(db, row.id, token, options.leaseMs).then(
        (held) => held || lost(),
        (err: unknown) => log.warn({ err }, 'could not renew the lease; will try again'),
      );
    }, renewEvery);
    const ctx: JobContext = {
      signal: controller.signal,
      logger: log,
      async progress(done, total) {
        if (!(await jobsRepo.progress(db, row.id, token, done, total))) lost();
      },
    };
    try {
      await registered.handler(job, ctx);
      clearInterval(renewal);
      if (await jobsRepo.succeed(db, row.id, token, registered.forgetPayload)) outcome('succeeded');
      else {
        log.warn('job finished after its lease was lost: another instance runs it again');
        outcome('lost');
      }
    } catch (err) {
      clearInterval(renewal);
      await settleFailure(row, token, registered, controller.signal, err, log).then(outcome, (storeErr: unknown) => {
        // The database is away: the lease expires and the job runs again.
        log.error({ err: storeErr, jobError: err }, 'could not record how the job ended');
      });
    } finally {
      clearInterval(renewal);
    }
  }

  async function settleFailure(
    row: JobRow,
    token: string,
    { maxAttempts, forgetPayload }: { maxAttempts: number; forgetPayload: boolean },
    signal: AbortSignal,
    err: unknown,
    log: Logger,
  ): Promise<JobOutcome> {
    if (signal.aborted && signal.reason === LEASE_LOST) {
      log.warn({ err }, 'job stopped: its lease was lost and another instance runs it');
      return 'lost';
    }
    if (signal.aborted && signal.reason === SHUTDOWN) {
      await jobsRepo.release(db, row.id, token);
      log.info('job given back to the queue: this instance is stopping');
      return 'released';
    }
    if (err instanceof JobDeferredError) {
      await jobsRepo.defer(db, row.id, token, err.delayMs);
      log.info({ deferMs: err.delayMs, reason: err.message }, 'job deferred');
      return 'deferred';
    }
    const retryable = err instanceof RetryableJobError || err instanceof DatabaseUnavailableError;
    const message =
      err instanceof RetryableJobError || err instanceof JobFailedError
        ? err.message.slice(0, ERROR_MAX_CHARS)
        : `The job failed on an unexpected error (job ${row.id}); the service log has the details.`;
    if (retryable && row.attempts < maxAttempts) {
      const delay = err instanceof RetryableJobError && err.retryAfterMs !== undefined ? err.retryAfterMs : backoffMs(row.attempts, options, random);
      await jobsRepo.retry(db, row.id, token, delay, message);
      log.warn({ err, retryInMs: delay }, 'job will be retried');
      return 'retried';
    }
    await jobsRepo.fail(db, row.id, token, message, forgetPayload);
    log.error({ err }, retryable ? `job failed after ${maxAttempts} attempts` : 'job failed');
    return 'failed';
  }

  async function work(): Promise<void> {
    while (!stopping) {
      const free = options.concurrency - running.size;
      let claimed = 0;
      poked = false;
      if (free > 0 && handlers.size > 0) {
        try {
          const { token, rows } = await jobsRepo.claim(db, { kinds: [...handlers.keys()], limit: free, leaseMs: options.leaseMs });
          claimed = rows.length;
          for (const row of rows) {
            const controller = new AbortController();
            const done = runJob(row, token, controller)
              .catch((err: unknown) => logger.error({ err, jobId: row.id }, 'job runner failed'))
              .finally(() => {
                running.delete(row.id);
                poke();
              });
            running.set(row.id, { controller, done });
          }
        } catch (err) {
          logger.warn({ err }, 'could not claim jobs; will try again');
        }
        if (performance.now() - lastPurge > PURGE_EVERY_MS) {
          lastPurge = performance.now();
          jobsRepo.purgeFinished(db, options.retentionMs).catch((err: unknown) => logger.warn({ err }, 'could not purge finished jobs'));
        }
      }
      // A full batch may mean more are due: look again at once. Otherwise wait for the poll, a poke,
      // or a slot coming free.
      if ((claimed > 0 && claimed === free) || (poked && free > 0)) continue;
      wake = new AbortController();
      await sleep(options.pollMs, undefined, { signal: wake.signal, ref: false }).catch(() => {});
    }
  }

  return {
    registerHandler(kind, handler, handlerOptions = {}) {
      if (handlers.has(kind)) throw new Error(`a handler for job kind ${kind} is registered already`);
      handlers.set(kind, {
        handler: handler as JobHandler<any>,
        maxAttempts: handlerOptions.maxAttempts ?? options.maxAttempts,
        forgetPayload: handlerOptions.forgetPayload ?? false,
      });
      poke();
    },
    start() {
      if (started) return;
      started = true;
      // Woken when a job of a kind it handles becomes due (wakeups.ts); the poll is the fallback.
      unsubscribe = deps.wakeups?.subscribe((kind) => handlers.has(kind), poke) ?? unsubscribe;
      loop = work();
    },
    poke,
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe();
      poke();
      await loop;
      const inFlight = [...running.values()];
      for (const { controller } of inFlight) controller.abort(SHUTDOWN);
      const waited = await Promise.race([Promise.allSettled(inFlight.map((r) => r.done)).then(() => true), sleep(STOP_WAIT_MS, false, { ref: false })]);
      if (!waited) logger.warn({ jobs: running.size }, 'stopped with jobs still running; their leases expire and another instance takes them');
    },
    get running() {
      return running.size;
    },
  };
}
