// Token buckets shared by every instance, in Redis. Written by hand (a short Lua script, run
// atomically by Redis) because the well-kept limiters (rate-limiter-flexible, @fastify/rate-limit)
// count fixed windows, not a token bucket with API Gateway's meaning. The script reads Redis' own
// clock, so instances whose clocks disagree still share one bucket, and takes from several buckets
// in order in one round trip (an org's, then the stage's: `takeInOrder`), stopping at the first
// that refuses. While Redis is unreachable, each instance falls back to its own buckets at the
// same limits, and returns to the shared ones by itself when Redis is back.
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import type { RateLimiter } from './interface.ts';
import { MemoryRateLimiter } from './memory.ts';
import type { BucketLimits, Decision } from './token-bucket.ts';
import { millisOf, systemClock } from '../lib/clock.ts';

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

  constructor(redis: Redis, limits: BucketLimits, prefix: string, logger: Logger, now: () => number = millisOf(systemClock)) {
    if (!('tokenBuckets' in redis)) redis.defineCommand('tokenBuckets', { lua: SCRIPT });
    this.redis = redis as WithBuckets;
    this.limits = limits;
    this.#prefix = prefix;
    this.#fallback = new MemoryRateLimiter(limits, now);
    this.#logger = logger;
  }

  async take(bucket: string): Promise<Decision> {
    const { refusedAt, remaining } = await RedisRateLimiter.takeInOrder([{ limiter: this, bucket }]);
    return refusedAt === -1 ? { allowed: true, remaining } : { allowed: false, remaining: 0 };
  }

  /** Takes from each step's bucket in order, in one round trip; all steps' limiters are Redis ones on one client. */
  static async takeInOrder(steps: BucketStep[]): Promise<StepsDecision> {
    const limiters = steps.map((s) => s.limiter as RedisRateLimiter);
    const first = limiters[0]!;
    const keys = steps.map((s, i) => `${limiters[i]!.#prefix}${s.bucket}`);
    const args = limiters.flatMap((l) => [l.limits.rate, l.limits.burst]);
    try {
      const [refused, tokens] = await first.redis.tokenBuckets(keys.length, ...keys, ...args);
      if (first.#degraded) {
        first.#degraded = false;
        first.#logger.info({ buckets: keys }, 'rate limit: back on the shared Redis buckets');
      }
      return refused === 0 ? { refusedAt: -1, remaining: Math.floor(Number(tokens)) } : { refusedAt: refused - 1, remaining: 0 };
    } catch (err) {
      if (!first.#degraded) {
        first.#degraded = true;
        first.#logger.warn({ err: (err as Error).message, buckets: keys }, 'rate limit: Redis unreachable, using per-instance buckets');
      }
      let remaining = 0;
      for (const [i, s] of steps.entries()) {
        const decision = limiters[i]!.#fallback.take(s.bucket);
        if (!decision.allowed) return { refusedAt: i, remaining: 0 };
        remaining = decision.remaining;
      }
      return { refusedAt: -1, remaining };
    }
  }
}
