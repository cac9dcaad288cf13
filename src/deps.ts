// Builds every long-lived dependency from the config, once, and closes them in reverse order.
// Tests call createDeps with their own config (and may override parts, such as the clock).
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { openDatabase, type Database } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import type { HealthCheck } from './health/routes.ts';

export type Clock = () => Date;

export interface Deps {
  config: Config;
  logger: Logger;
  database: Database;
  redis: Redis | undefined;
  clock: Clock;
  healthChecks: Record<string, HealthCheck>;
  close(): Promise<void>;
}

export interface DepsOverrides {
  clock?: Clock;
}

export async function createDeps(config: Config, logger: Logger, overrides: DepsOverrides = {}): Promise<Deps> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onPoolError: (err) => logger.warn({ err }, 'database connection lost'),
  });
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const { applied } = await migrate(database);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let redis: Redis | undefined;
    if (config.redisUrl) {
      redis = connectRedis(config.redisUrl, logger);
      const r = redis;
      closers.unshift(() => r.quit().catch(() => r.disconnect()));
    }

    const healthChecks: Record<string, HealthCheck> = { database: () => database.ping(1000) };
    if (redis) {
      const r = redis;
      healthChecks.redis = async () => {
        if (r.status !== 'ready') throw new Error(`redis is ${r.status}`);
        await r.ping();
      };
    }

    return {
      config,
      logger,
      database,
      redis,
      clock: overrides.clock ?? (() => new Date()),
      healthChecks,
      async close() {
        for (const close of closers) await close();
      },
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}

function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    // Fail fast while Redis is away, so callers can fall back instead of queueing requests.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reported = false;
  redis.on('error', (err) => {
    if (!reported) logger.warn({ err: err.message }, 'redis unreachable; using per-instance fallbacks');
    reported = true;
  });
  redis.on('ready', () => {
    if (reported) logger.info('redis reachable again');
    reported = false;
  });
  return redis;
}
