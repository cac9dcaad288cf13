// The core: what every capability's module is built from, made once per process by createCore. The
// server (deps.ts) and the CLI (cli/context.ts) both start here, so the database is opened and
// migrated, and the caches, the clock and the job queue are made, one way only. The core decides
// nothing about a capability: each module.ts reads its own settings from `config`.
import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { millisOf, systemClock, type Clock } from '../lib/clock.ts';
import { openDatabase, willCreateEmbeddedDatabase, type Database, type Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { createCaches, uncached, type Caches } from '../cache/namespaces.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import { createJobQueue, type JobQueue } from '../jobs/queue.ts';
import { listenForJobs, type JobWakeups } from '../jobs/wakeups.ts';
import { scryptHasher, type PasswordHasher } from '../lib/passwords.ts';
import { closeLimiters, createLimiters, type Limiters } from '../ratelimit/limiters.ts';
import { QuotaCounter } from '../quota/counter.ts';
import type { DataDirSnapshot } from '../store/seeded-fs.ts';

export interface Core {
  config: Config;
  logger: Logger;
  database: Database;
  /** `database.db`: what services and repositories query. */
  db: Db;
  /** Set when REDIS_URL is: the shared rate limits. */
  redis: Redis | undefined;
  clock: Clock;
  /** Every cache and what each write forgets (cache/namespaces.ts); nothing is kept in a one-shot command. */
  caches: Caches;
  /** This instance's Prometheus registry and the metrics the service records (metrics/metrics.ts). */
  metrics: Metrics;
  /** The durable job queue: modules hand it their handlers (`Module.jobs`); jobs are queued with jobs/queue.ts's `enqueue`. */
  queue: JobQueue;
  /** Tells the job queues when a job is due (jobs/wakeups.ts); none in a one-shot command. */
  wakeups: JobWakeups | undefined;
  /** The token buckets (ratelimit/limiters.ts): in Redis when it is set, else in this process. */
  limiters: Limiters;
  /** How a throttle refuses: Retry-After, and the delay before the 429 goes out. */
  refusal: { retryAfterS: number; delayMs: number };
  /** The monthly quota of API-key requests, counted in memory and added in batches (quota/counter.ts). */
  quota: QuotaCounter;
  /** The services' password hashing (tests count its calls, and hash at a lower cost). */
  passwords: PasswordHasher;
  /** Whether this process runs the job worker and the timers that only make sense with it. */
  jobWorker: boolean;
  /** Closes what the core opened: Redis, then the database (unless it was the caller's). */
  close(): Promise<void>;
}

export interface CoreOptions {
  clock?: Clock;
  /** A migrated embedded database to start from (`openDatabase`'s snapshot): the tests' servers. */
  snapshot?: DataDirSnapshot;
  passwords?: PasswordHasher | undefined;
  /** Tests: do not start the job worker (they drive or start it themselves). */
  jobWorker?: boolean;
  /** Tests: an open database to use instead of opening one; it stays the caller's (closing the core leaves it open). */
  shared?: { database?: Database };
  /**
   * A one-shot command (the CLI): no Redis, no caches (every read goes to the database, so there
   * is nothing to forget), and the job worker never runs (the service's worker sends what it queues).
   */
  oneShot?: boolean;
  /** A line for the person at the terminal, while an embedded database is created (the CLI). */
  progress?: ((message: string) => void) | undefined;
  /** Leave the schema as it is (the CLI's commands that must not migrate). */
  migrate?: boolean;
}

export async function createCore(config: Config, logger: Logger, options: CoreOptions = {}): Promise<Core> {
  const shared = options.shared ?? {};
  const creating = !shared.database && !options.snapshot && willCreateEmbeddedDatabase(config.databaseUrl, config.dataDir);
  if (creating) options.progress?.(`creating the embedded database in ${resolve(config.dataDir)} (first run only; this can take a minute)…`);
  const database =
    shared.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      // A command keeps openDatabase's defaults, which suit it; the service has its own (config.ts).
      ...(options.oneShot
        ? {}
        : {
            timeouts: config.databaseTimeouts,
            onConnectionLost: (err: Error, which: 'pool' | 'listener') =>
              logger.warn(
                { err },
                which === 'pool'
                  ? 'database connection lost; the pool opens a new one when needed'
                  : 'the connection that listens for due jobs was lost; reopening it (jobs are polled for meanwhile)',
              ),
          }),
      snapshot: options.snapshot,
    }));
  const closers: (() => Promise<unknown>)[] = shared.database ? [] : [() => database.close()];
  const close = async () => {
    for (const c of closers) await c().catch((err: unknown) => logger.warn({ err }, 'closing the core'));
  };
  try {
    if (options.migrate !== false) {
      const { applied } = await migrate(database);
      if (applied.length > 0 && !options.oneShot) logger.info({ applied }, 'migrations applied');
    }
    if (creating) options.progress?.('embedded database ready');
    const metrics = createMetrics();
    metrics.observeDatabasePool(() => database.poolStats());
    let redis: Redis | undefined;
    if (config.redisUrl && !options.oneShot) {
      // Loaded only with REDIS_URL: a service without Redis does not hold ioredis's code.
      const { connectRedis } = await import('../store/redis.ts');
      const r = connectRedis(config.redisUrl, logger, config.redisTimeouts);
      redis = r;
      closers.unshift(() => r.quit().catch(() => r.disconnect()));
    }
    const clock = options.clock ?? systemClock;
    const db = database.db;
    const jobWorker = !options.oneShot && options.jobWorker !== false;
    // Also without the worker: a test that starts a queue itself wants it woken too.
    const wakeups = options.oneShot ? undefined : await listenForJobs(database);
    if (wakeups) closers.unshift(async () => wakeups.close());
    // A `/metrics` counter of jobs by kind and outcome is recorded through the queue's onOutcome hook.
    const queue = createJobQueue({ db, logger, wakeups, options: { ...config.jobs, onOutcome: (kind, outcome) => metrics.jobFinished(kind, outcome) } });
    const limiters = createLimiters(config, redis, logger, millisOf(clock));
    // Before Redis is closed (closers run first to last, each unshifted before the one it precedes).
    closers.unshift(() => closeLimiters(limiters));
    const quota = new QuotaCounter({ db, clock, defaultLimit: config.quotaRequestsPerMonth, logger });
    closers.unshift(() => quota.close());
    return {
      config,
      logger,
      database,
      db,
      redis,
      clock,
      caches: options.oneShot ? uncached() : createCaches({ mode: database.kind, ttlMs: config.cacheTtlMs }),
      metrics,
      queue,
      wakeups,
      limiters,
      refusal: { retryAfterS: config.retryAfterS, delayMs: config.throttleRefusalDelayMs },
      quota,
      passwords: options.passwords ?? scryptHasher,
      jobWorker,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The per-address bucket every public route takes first (ratelimit/hook.ts's publicThrottle). */
export const byAddress = (core: Core) => ({ limiter: core.limiters.public, limit: core.config.publicRateLimit.burst });
