// The timing rule (DECISIONS wave 3, "Clicks"): a scanner fetches every link of a message within
// seconds; a person follows one. When the same address fetches two or more distinct links of one
// signature (org and user) within 10 s, the second and later are marked.
//
// Where the recent clicks are kept: with REDIS_URL, in Redis (SharedRecentClicks), so a scanner
// whose fetches a load balancer spreads over several instances is judged on all of them; without
// it, or while Redis does not answer, in this process (RecentClicks), as for the rate limits
// (docs/operations.md, "Redis").
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log.ts';

export const TIMING_WINDOW_MS = 10_000;
/** The most links of one signature from one address remembered (a signature has a handful). */
const KEPT = 20;

export interface ClickTiming {
  /** Whether this click follows another link of the same signature from the same address within the window; records it. */
  judge(address: string, orgId: string, userId: string, destination: string, at: number): boolean | Promise<boolean>;
}

export class RecentClicks implements ClickTiming {
  readonly #seen = new LRUCache<string, { destination: string; at: number }[]>({ max: 100_000 });

  judge(address: string, orgId: string, userId: string, destination: string, at: number): boolean {
    const key = `${address}|${orgId}|${userId}`;
    const recent = (this.#seen.get(key) ?? []).filter((c) => at - c.at < TIMING_WINDOW_MS && at >= c.at);
    const suspected = recent.some((c) => c.destination !== destination);
    recent.push({ destination, at });
    this.#seen.set(key, recent.slice(-KEPT));
    return suspected;
  }
}

// KEYS[1]: the address, org and user's sorted set (member: a destination, score: when it was last
// fetched, on the service's clock, as the click rows are). ARGV: the click's time, the window's
// exclusive lower bound ('(' and a time), the destination, the key's lifetime (ms), how many to keep.
// The same judgement as RecentClicks, atomically, in one round trip. Hand-written: no library
// offers this rule; it is five commands of Redis' own.
const SCRIPT = `
local fetched = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[1])
local suspected = 0
for _, d in ipairs(fetched) do
  if d ~= ARGV[3] then suspected = 1 break end
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[5]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return suspected
`;

type WithScript = Redis & { recentClick(key: string, ...args: (string | number)[]): Promise<number> };

export class SharedRecentClicks implements ClickTiming {
  readonly #redis: WithScript;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #fallback = new RecentClicks();
  #degraded = false;

  /** `prefix`: the stage's (`sigsvc:{stage}:clicks:`), so stages sharing a Redis do not mix. */
  constructor(redis: Redis, prefix: string, logger: Logger) {
    if (!('recentClick' in redis)) redis.defineCommand('recentClick', { numberOfKeys: 1, lua: SCRIPT });
    this.#redis = redis as WithScript;
    this.#prefix = prefix;
    this.#logger = logger;
  }

  async judge(address: string, orgId: string, userId: string, destination: string, at: number): Promise<boolean> {
    try {
      const key = `${this.#prefix}${address}|${orgId}|${userId}`;
      // Kept twice the window on Redis' clock: instances' clocks may differ a little.
      const suspected = await this.#redis.recentClick(key, at, `(${at - TIMING_WINDOW_MS}`, destination, 2 * TIMING_WINDOW_MS, KEPT);
      if (this.#degraded) this.#logger.info('click timing rule: Redis answers again; judging across instances');
      this.#degraded = false;
      return suspected === 1;
    } catch (err) {
      if (!this.#degraded) this.#logger.warn({ err }, 'click timing rule: Redis did not answer; judging in this instance meanwhile');
      this.#degraded = true;
      return this.#fallback.judge(address, orgId, userId, destination, at);
    }
  }
}
