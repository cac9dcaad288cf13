// The checks behind /health. Each throws a CheckFailure naming a class of failure; /health shows
// the class and never the driver's message (it carries hosts and ports, and /health is public).
import type { Redis } from 'ioredis';
import type { Database } from '../store/db.ts';
import { DatabaseUnavailableError } from '../store/errors.ts';
import { TimeoutError, withTimeout } from '../store/timeout.ts';

export type HealthCheck = () => Promise<void>;

/** Runs a check, failing it with a TimeoutError past `timeoutMs`. */
export const runCheck = (check: HealthCheck, timeoutMs: number): Promise<void> => withTimeout(check(), timeoutMs);

export type FailureClass = 'unreachable' | 'timeout' | 'failing';

export class CheckFailure extends Error {
  readonly failure: FailureClass;
  constructor(failure: FailureClass, cause?: unknown) {
    super(failure, { cause });
    this.failure = failure;
  }
}

/** What /health says of a failed check. */
export function failureClass(err: unknown): FailureClass {
  if (err instanceof CheckFailure) return err.failure;
  if (err instanceof DatabaseUnavailableError) return err.reason;
  if (err instanceof TimeoutError) return 'timeout';
  return 'failing';
}

export function databaseCheck(database: Database, timeoutMs = 1000): HealthCheck {
  return () => database.ping(timeoutMs);
}

export function redisCheck(redis: Redis): HealthCheck {
  return async () => {
    if (redis.status !== 'ready') throw new CheckFailure('unreachable', new Error(`redis is ${redis.status}`));
    try {
      await redis.ping();
    } catch (err) {
      throw new CheckFailure(/timed out/i.test((err as Error).message) ? 'timeout' : 'unreachable', err);
    }
  };
}
