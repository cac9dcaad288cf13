// One token bucket shared by every instance, in Redis. Written by hand (a short Lua script, run
// atomically by Redis) because the well-kept limiters (rate-limiter-flexible, @fastify/rate-limit)
// count fixed windows, not a token bucket with API Gateway's meaning. The script reads Redis' own
// clock, so instances whose clocks disagree still share one bucket. While Redis is unreachable,
// each instance falls back to its own bucket at the same limits, and returns to the shared one by
// itself when Redis is back.
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import type { RateLimiter } from './interface.ts';
import { MemoryRateLimiter } from './memory.ts';
import type { BucketLimits, Decision } from './token-bucket.ts';
import { millisOf, systemClock } from '../lib/clock.ts';

const SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
tokens = math.min(burst, tokens + math.max(0, now - ts) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

type WithBucket = Redis & { tokenBucket(key: string, rate: number, burst: number): Promise<[number, string]> };

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: WithBucket;
  readonly #limits: BucketLimits;
  readonly #prefix: string;
  readonly #fallback: MemoryRateLimiter;
  readonly #logger: Logger;
  #degraded = false;

  constructor(redis: Redis, limits: BucketLimits, prefix: string, logger: Logger, now: () => number = millisOf(systemClock)) {
    if (!('tokenBucket' in redis)) redis.defineCommand('tokenBucket', { numberOfKeys: 1, lua: SCRIPT });
    this.#redis = redis as WithBucket;
    this.#limits = limits;
    this.#prefix = prefix;
    this.#fallback = new MemoryRateLimiter(limits, now);
    this.#logger = logger;
  }

  async take(bucket: string): Promise<Decision> {
    try {
      const [allowed, tokens] = await this.#redis.tokenBucket(`${this.#prefix}${bucket}`, this.#limits.rate, this.#limits.burst);
      if (this.#degraded) {
        this.#degraded = false;
        this.#logger.info({ bucket }, 'rate limit: back on the shared Redis bucket');
      }
      if (allowed === 1) return { allowed: true, remaining: Math.floor(Number(tokens)) };
      return { allowed: false, remaining: 0 };
    } catch (err) {
      if (!this.#degraded) {
        this.#degraded = true;
        this.#logger.warn({ err: (err as Error).message, bucket }, 'rate limit: Redis unreachable, using a per-instance bucket');
      }
      return this.#fallback.take(bucket);
    }
  }
}
