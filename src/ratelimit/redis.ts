// Token buckets shared by every instance, in Redis. Written by hand (a short Lua script, run
// atomically by Redis) because the well-kept limiters (rate-limiter-flexible, @fastify/rate-limit)
// count fixed windows, not a token bucket with API Gateway's meaning. The script reads Redis' own
// clock, so instances whose clocks disagree still share one bucket, and takes from several buckets
// in order in one round trip (an org's, then the stage's: `takeInOrder`), stopping at the first
// that refuses. While Redis is unreachable, each instance falls back to its own buckets at the
// same limits, and returns to the shared ones by itself when Redis is back.
//
// A bucket big enough (./lease.ts: a tenth of its burst above one token) is not asked per request:
// its tokens are leased to this instance a few at a time and spent here, one round trip per lease.
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import type { RateLimiter } from './interface.ts';
import { MemoryRateLimiter } from './memory.ts';
import type { BucketLimits, Decision } from './token-bucket.ts';
import { millisOf, systemClock } from '../lib/clock.ts';
import { LEASE_MS, Leases, leaseSize } from './lease.ts';

// KEYS: the buckets, in order; ARGV: rate and burst of each. Answers {0, remaining of the last}
// when every bucket gave a token, or {i, '0'} when bucket i (1-based) refused (those before it
// gave theirs, as separate takes would have).
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local remaining = '0'
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'ts')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if tokens == nil or ts == nil then tokens = burst; ts = now end
  tokens = math.min(burst, tokens + math.max(0, now - ts) / 1000 * rate)
  local allowed = tokens >= 1
  if allowed then tokens = tokens - 1 end
  redis.call('HSET', KEYS[i], 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
  if not allowed then return {i, '0'} end
  remaining = tostring(tokens)
end
return {0, remaining}
`;

type WithBuckets = Redis & { tokenBuckets(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<[number, string]> };

/** One step of `takeInOrder`: a bucket of a limiter. */
export interface BucketStep {
  limiter: RateLimiter;
  bucket: string;
}

/** Which step refused (its index), or -1 when all gave a token; `remaining` is the last bucket's. */
export interface StepsDecision {
  refusedAt: number;
  remaining: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly redis: WithBuckets;
  readonly limits: BucketLimits;
  readonly #prefix: string;
  readonly #fallback: MemoryRateLimiter;
  readonly #logger: Logger;
  #degraded = false;
  /** Set when this limiter's buckets are leased (RATE_LIMIT_LEASE above 1 and buckets big enough). */
  readonly leases: Leases | undefined;
  readonly #sweeper: NodeJS.Timeout | undefined;

  constructor(redis: Redis, limits: BucketLimits, prefix: string, logger: Logger, now: () => number = millisOf(systemClock), leaseMax = 1) {
    if (!('tokenBuckets' in redis)) redis.defineCommand('tokenBuckets', { lua: SCRIPT });
    this.redis = redis as WithBuckets;
    this.limits = limits;
    this.#prefix = prefix;
    this.#fallback = new MemoryRateLimiter(limits, now);
    this.#logger = logger;
    const size = leaseSize(limits, leaseMax);
    if (size > 1) {
      const leases = new Leases(redis, limits, size, now);
      this.leases = leases;
      this.#sweeper = setInterval(() => void leases.sweep(), LEASE_MS).unref();
    }
  }

  take(bucket: string): Decision | Promise<Decision> {
    if (!this.leases) return this.#takeShared(bucket);
    let decision: Decision | Promise<Decision>;
    try {
      decision = this.leases.take(`${this.#prefix}${bucket}`);
    } catch (err) {
      return this.#fallBack([this.#prefix + bucket], err, () => this.#fallback.take(bucket));
    }
    if (!(decision instanceof Promise)) return decision;
    return decision.then(
      (d) => {
        this.#backOnShared([this.#prefix + bucket]);
        return d;
      },
      (err: unknown) => this.#fallBack([this.#prefix + bucket], err, () => this.#fallback.take(bucket)),
    );
  }

  async #takeShared(bucket: string): Promise<Decision> {
    const { refusedAt, remaining } = await RedisRateLimiter.takeInOrder([{ limiter: this, bucket }]);
    return refusedAt === -1 ? { allowed: true, remaining } : { allowed: false, remaining: 0 };
  }

  /** Gives the leased tokens back to their buckets (at shutdown, before Redis is closed). */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await this.leases?.sweep(true);
  }

  #backOnShared(keys: string[]): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#logger.info({ buckets: keys }, 'rate limit: back on the shared Redis buckets');
  }

  #fallBack<T>(keys: string[], err: unknown, fallback: () => T): T {
    if (!this.#degraded) {
      this.#degraded = true;
      this.#logger.warn({ err: (err as Error).message, buckets: keys }, 'rate limit: Redis unreachable, using per-instance buckets');
    }
    return fallback();
  }

  /** Takes from each step's bucket in order, in one round trip; all steps' limiters are Redis ones on one client. */
  static async takeInOrder(steps: BucketStep[]): Promise<StepsDecision> {
    const limiters = steps.map((s) => s.limiter as RedisRateLimiter);
    const first = limiters[0]!;
    const keys = steps.map((s, i) => `${limiters[i]!.#prefix}${s.bucket}`);
    const args = limiters.flatMap((l) => [l.limits.rate, l.limits.burst]);
    try {
      const [refused, tokens] = await first.redis.tokenBuckets(keys.length, ...keys, ...args);
      first.#backOnShared(keys);
      return refused === 0 ? { refusedAt: -1, remaining: Math.floor(Number(tokens)) } : { refusedAt: refused - 1, remaining: 0 };
    } catch (err) {
      return first.#fallBack(keys, err, () => {
        let remaining = 0;
        for (const [i, s] of steps.entries()) {
          const decision = limiters[i]!.#fallback.take(s.bucket);
          if (!decision.allowed) return { refusedAt: i, remaining: 0 };
          remaining = decision.remaining;
        }
        return { refusedAt: -1, remaining };
      });
    }
  }
}
