// Every token bucket of the service, in Redis when REDIS_URL is set (shared by the instances),
// else in this process. A limiter holds buckets of one size; the key names whose bucket it is
// (`stage`, `org:{orgId}`, `public:{address}`, …: src/app.ts).
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { RateLimiter } from './interface.ts';
import { MemoryRateLimiter } from './memory.ts';
import { RedisRateLimiter } from './redis.ts';

/** Gives every leased token back (src/ratelimit/lease.ts): at shutdown, before Redis closes. */
export async function closeLimiters(limiters: Limiters): Promise<void> {
  await Promise.all(Object.values(limiters).map((l) => (l instanceof RedisRateLimiter ? l.close() : undefined)));
}

export interface Limiters {
  /** Spec section 8: every authenticated request. */
  stage: RateLimiter;
  /** One bucket per org, besides the stage's (DECISIONS wave 3, "Per-org bucket"). */
  org: RateLimiter;
  /** Per client address: requests with missing or invalid credentials on the org and staff routes. */
  anon: RateLimiter;
  /** Per client address, across the public routes (DECISIONS wave 3, "Public routes"). */
  public: RateLimiter;
  /** Stage-wide buckets of the public routes: the pixel, the assets (images), the click route. */
  pixel: RateLimiter;
  asset: RateLimiter;
  click: RateLimiter;
  /** One bucket per org, of add-in requests with a valid key. */
  addin: RateLimiter;
  /** Per client address: sign-in attempts (SIGNIN_ATTEMPTS_PER_MINUTE, src/auth/idp/). */
  signIn: RateLimiter;
  /** One bucket per org, of SCIM requests with a valid token (src/scim/routes.ts: not the org's nor the quota). */
  scim: RateLimiter;
}

export function createLimiters(config: Config, redis: Redis | undefined, logger: Logger, now: () => number): Limiters {
  const make = ({ rps, burst }: { rps: number; burst: number }): RateLimiter => {
    const limits = { rate: rps, burst };
    return redis ? new RedisRateLimiter(redis, limits, `sigsvc:${config.stage}:rl:`, logger, now, config.rateLimitLease) : new MemoryRateLimiter(limits, now);
  };
  return {
    stage: make(config.rateLimit),
    org: make(config.orgRateLimit),
    anon: make(config.anonRateLimit),
    public: make(config.publicRateLimit),
    pixel: make(config.pixelRateLimit),
    asset: make(config.assetRateLimit),
    click: make(config.clickRateLimit),
    addin: make(config.addinRateLimit),
    signIn: make({ rps: config.signInAttemptsPerMinute / 60, burst: config.signInAttemptsPerMinute }),
    // Entra sends about 4 requests at once, Okta near 10 a second: 50 a second with a burst of 200
    // never slows either, and keeps one org's provisioning from crowding the others.
    scim: make({ rps: 50, burst: 200 }),
  };
}
