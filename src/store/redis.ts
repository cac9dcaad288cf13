// The Redis client of the shared rate-limit buckets. Redis is an optimisation here, never a
// dependency a request waits on: each caller has a per-instance fallback, so every setting below
// makes a missing or stuck Redis fail fast rather than queue.
import { Redis } from 'ioredis';
import type { Logger } from '../log.ts';

export interface RedisTimeouts {
  /** A command without an answer after this long is failed, and the caller falls back. */
  commandTimeoutMs: number;
}

export function connectRedis(url: string, logger: Logger, timeouts: RedisTimeouts): Redis {
  const redis = new Redis(url, {
    // While Redis is away, commands fail at once instead of waiting in a queue for it.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: timeouts.commandTimeoutMs,
    // A connection that stops answering (a stopped or overloaded Redis, a dead link) is dropped and
    // reconnected: meanwhile commands fail at once (the offline queue is off) instead of each
    // waiting out the command timeout.
    socketTimeout: Math.max(1000, timeouts.commandTimeoutMs * 4),
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
