import type { Decision } from './token-bucket.ts';

/** A set of named token buckets; implementations: in process (memory.ts) or shared (redis.ts). */
export interface RateLimiter {
  take(bucket: string): Promise<Decision>;
}
