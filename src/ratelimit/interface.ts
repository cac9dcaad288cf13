import type { Decision } from './token-bucket.ts';

/** A set of named token buckets; implementations: in process (memory.ts) or shared (redis.ts). */
export interface RateLimiter {
  /** Synchronous when the answer is at hand (in memory), a promise when it is not (Redis). */
  take(bucket: string): Decision | Promise<Decision>;
}
