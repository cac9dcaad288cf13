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
import { Batcher, type Settled } from '../store/batcher.ts';
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

// KEYS: one sorted set per click, of its address, org and user (member: a destination, score: when
// it was last fetched, on the service's clock, as the click rows are). ARGV: the key's lifetime (ms)
// and how many to keep, then three per click: its time, the window's exclusive lower bound ('(' and
// a time) and its destination. Judges the clicks in order, each as RecentClicks does, atomically, and
// answers a 0 or 1 per click. Hand-written: no library offers this rule; it is five commands of
// Redis' own a click.
const SCRIPT = `
local life, kept = ARGV[1], tonumber(ARGV[2])
local judged = {}
for i, key in ipairs(KEYS) do
  local at, from, destination = ARGV[3 * i], ARGV[3 * i + 1], ARGV[3 * i + 2]
  local suspected = 0
  for _, d in ipairs(redis.call('ZRANGEBYSCORE', key, from, at)) do
    if d ~= destination then suspected = 1 break end
  end
  redis.call('ZADD', key, 'GT', at, destination)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', from)
  redis.call('ZREMRANGEBYRANK', key, 0, -(kept + 1))
  redis.call('PEXPIRE', key, life)
  judged[i] = suspected
end
return judged
`;
/** The most clicks judged in one call of the script. */
const BATCH = 200;

type WithScript = Redis & { recentClicks(keyCount: number, ...args: (string | number)[]): Promise<number[]> };
interface Click {
  address: string;
  orgId: string;
  userId: string;
  destination: string;
  at: number;
}

export class SharedRecentClicks implements ClickTiming {
  readonly #redis: WithScript;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #fallback = new RecentClicks();
  // The clicks that arrive while a call is on its way are judged together by the next one: one
  // round trip, and one command for ioredis to make and parse, for a burst instead of one a click
  // (BENCHMARKS.md, "The click's judgement in Redis, in batches").
  readonly #batches = new Batcher<Click, boolean>((clicks) => this.#judgeAll(clicks), BATCH);
  #degraded = false;

  /** `prefix`: the stage's (`sigsvc:{stage}:clicks:`), so stages sharing a Redis do not mix. */
  constructor(redis: Redis, prefix: string, logger: Logger) {
    if (!('recentClicks' in redis)) redis.defineCommand('recentClicks', { lua: SCRIPT });
    this.#redis = redis as WithScript;
    this.#prefix = prefix;
    this.#logger = logger;
  }

  judge(address: string, orgId: string, userId: string, destination: string, at: number): Promise<boolean> {
    return this.#batches.submit({ address, orgId, userId, destination, at });
  }

  async #judgeAll(clicks: Click[]): Promise<Settled<boolean>[]> {
    const keys = clicks.map((c) => `${this.#prefix}${c.address}|${c.orgId}|${c.userId}`);
    const args = clicks.flatMap((c) => [c.at, `(${c.at - TIMING_WINDOW_MS}`, c.destination]);
    try {
      // Kept twice the window on Redis' clock: instances' clocks may differ a little.
      const judged = await this.#redis.recentClicks(keys.length, ...keys, 2 * TIMING_WINDOW_MS, KEPT, ...args);
      if (this.#degraded) this.#logger.info('click timing rule: Redis answers again; judging across instances');
      this.#degraded = false;
      return judged.map((suspected) => ({ ok: true, value: suspected === 1 }));
    } catch (err) {
      if (!this.#degraded) this.#logger.warn({ err }, 'click timing rule: Redis did not answer; judging in this instance meanwhile');
      this.#degraded = true;
      return clicks.map((c) => ({ ok: true, value: this.#fallback.judge(c.address, c.orgId, c.userId, c.destination, c.at) }));
    }
  }
}
