import { LRUCache } from 'lru-cache';
import { entryBound } from '../lib/lru.ts';
import { take, type BucketLimits, type BucketState, type Decision } from './token-bucket.ts';
import type { RateLimiter } from './interface.ts';
import { millisOf, systemClock } from '../lib/clock.ts';

/** Buckets in this process. Bounded: at most `maxBuckets` keys (least recently used go first). */
export class MemoryRateLimiter implements RateLimiter {
  readonly #limits: BucketLimits;
  readonly #now: () => number;
  readonly #buckets: LRUCache<string, BucketState>;

  constructor(limits: BucketLimits, now: () => number = millisOf(systemClock), maxBuckets = 100_000) {
    this.#limits = limits;
    this.#now = now;
    this.#buckets = new LRUCache(entryBound(maxBuckets));
  }

  take(bucket: string): Decision {
    const held = this.#buckets.get(bucket);
    const { state, decision } = take(held, this.#limits, this.#now());
    // A bucket held is updated in place (its get() made it the most recent already): no second lookup.
    if (held) {
      held.tokens = state.tokens;
      held.at = state.at;
    } else this.#buckets.set(bucket, state);
    return decision;
  }
}
