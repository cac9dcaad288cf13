// Tokens of a shared Redis bucket leased to this instance a few at a time (RATE_LIMIT_LEASE), so
// that most requests are decided here without a Redis round trip (issue #32, docs/operations.md,
// "Rate limits across instances"). Redis hands out a lease from the bucket by the same arithmetic
// as a single take (./redis.ts): a lease is never more than the bucket holds, so the instances
// together admit at most what the bucket gives plus the tokens each holds unspent: within one
// lease per instance and bucket. A lease unspent after LEASE_MS goes back to the bucket (the next
// take of that bucket returns it with its request for a new one; a sweep returns those of quiet
// buckets), so an instance that falls quiet does not keep tokens from the others.
//
// One fetch per bucket at a time: requests that find the lease empty while a fetch is on its way
// wait for it and take from what it brought. A bucket that refused is known empty here for the
// time one token takes to come back (at most LEASE_MS): a flood past its bucket is refused here,
// not one round trip each. That refuses a little more, never admits more.
import type { Redis } from 'ioredis';
import type { BucketLimits, Decision } from './token-bucket.ts';

/** How long a lease is spent from before what is left goes back to the bucket. */
export const LEASE_MS = 1000;

// KEYS[1]: the bucket; ARGV: rate, burst, tokens wanted, tokens returned. Refills by Redis' clock,
// adds the returned tokens (up to the burst), hands out up to `wanted` whole tokens. Answers
// {granted, tokens left in the bucket}.
export const LEASE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local returned = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
tokens = math.min(burst, tokens + math.max(0, now - ts) / 1000 * rate + returned)
local granted = math.max(0, math.min(wanted, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {granted, tostring(tokens)}
`;

export type WithLease = Redis & { leaseTokens(key: string, rate: number, burst: number, wanted: number, returned: number): Promise<[number, string]> };

interface Lease {
  /** Whole tokens left to spend here. */
  tokens: number;
  /** When what is left goes back (this instance's clock). */
  expiresAt: number;
  /** The bucket's tokens when the lease was handed out, for X-RateLimit-Remaining. */
  bucketLeft: number;
  /** Refused until then without asking Redis. */
  emptyUntil: number;
  fetching?: Promise<unknown> | undefined;
}

/** A lease holds what its bucket refills in this long (at least MIN_LEASE tokens). */
const LEASE_REFILL_MS = 10;
/** The smallest lease worth a round trip: below it, a bucket's requests ask Redis one by one. */
const MIN_LEASE = 10;

/**
 * The most tokens one lease holds for a bucket of these limits: what the bucket refills in
 * LEASE_REFILL_MS, at least MIN_LEASE; never more than `max` (RATE_LIMIT_LEASE) nor a tenth of the
 * burst. 1 (no lease: every request asks Redis) when `max` is 1 or the bucket is small. A fixed 10
 * cost busy buckets of high limits a round trip per ten requests; 10 ms of the rate keeps each
 * instance within 1 % of a second's rate of the limit (docs/operations.md).
 */
export const leaseSize = (limits: BucketLimits, max: number) =>
  Math.max(1, Math.min(max, Math.floor(limits.burst / 10), Math.max(MIN_LEASE, Math.floor((limits.rate * LEASE_REFILL_MS) / 1000))));

const REFUSED: Decision = { allowed: false, remaining: 0 };

/** The leases of one limiter's buckets. `ask` fails when Redis does; the caller falls back. */
export class Leases {
  readonly #leases = new Map<string, Lease>();
  readonly #redis: WithLease;
  readonly #limits: BucketLimits;
  readonly #size: number;
  readonly #now: () => number;

  constructor(redis: Redis, limits: BucketLimits, size: number, now: () => number) {
    if (!('leaseTokens' in redis)) redis.defineCommand('leaseTokens', { numberOfKeys: 1, lua: LEASE_SCRIPT });
    this.#redis = redis as WithLease;
    this.#limits = limits;
    this.#size = size;
    this.#now = now;
  }

  /** A token of `key`'s bucket: at once from the lease, else after one round trip for a new lease. */
  take(key: string): Decision | Promise<Decision> {
    const now = this.#now();
    const lease = this.#leases.get(key);
    if (lease) {
      if (lease.fetching) return lease.fetching.then(() => this.take(key));
      if (now < lease.emptyUntil) return REFUSED;
      if (lease.tokens >= 1 && now < lease.expiresAt) {
        lease.tokens -= 1;
        return { allowed: true, remaining: Math.floor(lease.bucketLeft + lease.tokens) };
      }
    }
    return this.#fetch(key, lease, now);
  }

  async #fetch(key: string, old: Lease | undefined, now: number): Promise<Decision> {
    const returned = old ? old.tokens : 0;
    const lease: Lease = old ?? { tokens: 0, expiresAt: 0, bucketLeft: 0, emptyUntil: 0 };
    lease.tokens = 0;
    this.#leases.set(key, lease);
    const asked = this.#redis.leaseTokens(key, this.#limits.rate, this.#limits.burst, this.#size, returned);
    lease.fetching = asked;
    try {
      const [granted, left] = await asked;
      lease.bucketLeft = Number(left);
      if (granted < 1) {
        lease.emptyUntil = now + Math.min(LEASE_MS, 1000 / this.#limits.rate);
        return REFUSED;
      }
      lease.tokens = granted - 1;
      lease.expiresAt = now + LEASE_MS;
      lease.emptyUntil = 0;
      return { allowed: true, remaining: Math.floor(lease.bucketLeft + lease.tokens) };
    } catch (err) {
      // The tokens it held may be lost with Redis; the fallback (./redis.ts) counts from here.
      this.#leases.delete(key);
      throw err;
    } finally {
      lease.fetching = undefined;
    }
  }

  /** Gives back what expired leases hold, and forgets leases with nothing left to remember. */
  async sweep(all = false): Promise<void> {
    const now = this.#now();
    const back: Promise<unknown>[] = [];
    for (const [key, lease] of this.#leases) {
      if (lease.fetching || (!all && (now < lease.expiresAt || now < lease.emptyUntil))) continue;
      this.#leases.delete(key);
      if (lease.tokens >= 1) back.push(this.#redis.leaseTokens(key, this.#limits.rate, this.#limits.burst, 0, lease.tokens));
    }
    await Promise.allSettled(back);
  }
}
