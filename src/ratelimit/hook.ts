// The throttle hooks. On the org and staff routes the throttle runs right after authentication
// (docs/architecture.md, "A request's path"): an authenticated request takes a token from its
// org's bucket and from the stage-wide one, a request with missing or invalid credentials one from
// its client's own bucket, so anonymous floods cannot starve the tenants. Public routes list their
// buckets on the route. 429 exactly as docs/api.md, "Rate limits" says (JSON, Retry-After,
// X-Correlation-Id header, no correlationId in the body), with `error.details.scope` naming the
// limit that refused (docs/api.md lists the scopes).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimiter } from './interface.ts';
import { RedisRateLimiter, type BucketStep, type StepsDecision } from './redis.ts';
import { CORRELATION_HEADER } from '../http/correlation.ts';
import type { Config } from '../config.ts';
import type { Limiters } from './limiters.ts';

export type Throttle = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** Which limit refused a request: `error.details.scope` of its 429. */
export type ThrottleScope = 'stage' | 'org' | 'anonymous' | 'quota' | 'mail' | 'address' | 'pixel' | 'asset' | 'click' | 'addin';

/** How a throttle refuses: the `Retry-After` it sends, and how long it holds the 429 back. */
export interface Refusal {
  retryAfterS: number;
  /**
   * THROTTLE_REFUSAL_DELAY_MS: the 429 goes out this much later. A client past its bucket that
   * retries at once (as a flood does, on kept-alive connections) then sends a request per delay
   * and connection instead of as many as the event loop can refuse, which would slow everyone.
   */
  delayMs: number;
}

/** Answers the 429 of spec section 8 with the refusing limit's scope. */
export function tooManyRequests(request: FastifyRequest, reply: FastifyReply, scope: ThrottleScope, refusal: Refusal): void {
  const send = () =>
    reply
      .code(429)
      .header('retry-after', refusal.retryAfterS)
      .header(CORRELATION_HEADER, request.id)
      .type('application/json')
      .send({ error: { code: 'TOO_MANY_REQUESTS', message: `Rate limit exceeded: retry in ${refusal.retryAfterS} seconds.`, details: { scope } } });
  if (refusal.delayMs > 0) setTimeout(send, refusal.delayMs);
  else send();
}

/** A bucket a throttle takes from: `bucketOf` names it for a request, or skips it (undefined). */
export interface ThrottleStep {
  limiter: RateLimiter;
  /** The bucket's size, sent as `X-RateLimit-Limit`. */
  limit: number;
  scope: ThrottleScope;
  bucketOf: (request: FastifyRequest) => string | undefined;
}

/**
 * Takes a token from each step's bucket in order, stopping at the first that refuses (429 with its
 * scope): a refused request takes nothing from the buckets after it. On Redis the buckets are taken
 * in one round trip. The `X-RateLimit-*` headers are those of the last bucket taken.
 */
export function throttleInOrder(refusal: Refusal, steps: ThrottleStep[]): Throttle {
  // Redis buckets asked per request go in one round trip; leased ones (./lease.ts) are mostly
  // decided here, one after the other.
  const shared = steps.every(
    (s) => s.limiter instanceof RedisRateLimiter && !s.limiter.leases && s.limiter.redis === (steps[0]!.limiter as RedisRateLimiter).redis,
  );
  const refuse = (request: FastifyRequest, reply: FastifyReply, step: ThrottleStep) => {
    reply.header('x-ratelimit-limit', step.limit);
    reply.header('x-ratelimit-remaining', 0);
    tooManyRequests(request, reply, step.scope, refusal);
  };
  /**
   * The steps from `from` on, one after the other (`last`: the last bucket taken, and what it has
   * left). No array, closure or promise per request while the buckets answer at once (in memory):
   * this runs on every throttled request.
   */
  const takeFrom = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, from: number, last?: ThrottleStep, left = 0): void => {
    for (let i = from; i < steps.length; i++) {
      const step = steps[i]!;
      const bucket = step.bucketOf(request);
      if (bucket === undefined) continue;
      const decision = step.limiter.take(bucket);
      if (decision instanceof Promise) {
        decision.then((d) => (d.allowed ? takeFrom(request, reply, done, i + 1, step, d.remaining) : refuse(request, reply, step)), done);
        return;
      }
      if (!decision.allowed) {
        refuse(request, reply, step);
        return;
      }
      last = step;
      left = decision.remaining;
    }
    if (last) {
      reply.header('x-ratelimit-limit', last.limit);
      reply.header('x-ratelimit-remaining', left);
    }
    done();
  };
  if (!shared) return (request, reply, done) => takeFrom(request, reply, done, 0);
  return (request, reply, done) => {
    const active: ThrottleStep[] = [];
    const buckets: BucketStep[] = [];
    for (const step of steps) {
      const bucket = step.bucketOf(request);
      if (bucket === undefined) continue;
      active.push(step);
      buckets.push({ limiter: step.limiter, bucket });
    }
    if (active.length === 0) return done();
    RedisRateLimiter.takeInOrder(buckets).then(({ refusedAt, remaining }: StepsDecision) => {
      if (refusedAt !== -1) return refuse(request, reply, active[refusedAt]!);
      const step = active.at(-1)!;
      reply.header('x-ratelimit-limit', step.limit);
      reply.header('x-ratelimit-remaining', remaining);
      done();
    }, done);
  };
}

/** Takes a token from the bucket `bucketOf` names for the request; 429 when there is none. */
export function throttle(
  limiter: RateLimiter,
  opts: { limit: number; refusal: Refusal; scope: ThrottleScope; bucketOf: (request: FastifyRequest) => string },
): Throttle {
  return throttleInOrder(opts.refusal, [{ limiter, limit: opts.limit, scope: opts.scope, bucketOf: opts.bucketOf }]);
}

/** The org of the caller, as a bucket name (`{prefix}{orgId}`); none for staff, who have no org. */
export const orgBucket =
  (prefix: string) =>
  (request: FastifyRequest): string | undefined => {
    const p = request.principal;
    return p && p.kind !== 'staff' ? prefix + p.orgId : undefined;
  };

/**
 * Runs throttles one after the other: the next only when the one before let the request through
 * (a refused request takes nothing from the buckets after the one that refused it). The
 * `X-RateLimit-*` headers are the last bucket's.
 */
export function inSequence(...throttles: Throttle[]): Throttle {
  return throttles.reduceRight<Throttle>(
    (next, current) => (request, reply, done) => current(request, reply, (err) => (err ? done(err) : next(request, reply, done))),
    (_request, _reply, done) => done(),
  );
}

/** After `authenticate`: the buckets of a request with a principal, the client's own bucket otherwise. */
export function throttleByCaller(buckets: { authenticated: Throttle; anonymous: Throttle }): Throttle {
  const { authenticated, anonymous } = buckets;
  return (request, reply, done) => (request.principal ? authenticated : anonymous)(request, reply, done);
}

/**
 * The throttle of a public route: the caller's per-address bucket first (`address`: the limiters'
 * `public` one), then the route's own stage-wide bucket, if it has one.
 */
export function publicThrottle(address: Pick<ThrottleStep, 'limiter' | 'limit'>, refusal: Refusal, own?: ThrottleStep): Throttle {
  const first: ThrottleStep = { ...address, scope: 'address', bucketOf: (request) => `public:${request.ip}` };
  return throttleInOrder(refusal, own ? [first, own] : [first]);
}

/** A public route's throttle: the caller's address first, then the route kind's stage-wide bucket. */
export function publicRouteThrottle(core: { limiters: Limiters; config: Config; refusal: Refusal }, kind: 'asset' | 'pixel' | 'click'): Throttle {
  const { burst } = { asset: core.config.assetRateLimit, pixel: core.config.pixelRateLimit, click: core.config.clickRateLimit }[kind];
  const address = { limiter: core.limiters.public, limit: core.config.publicRateLimit.burst };
  return publicThrottle(address, core.refusal, { limiter: core.limiters[kind], limit: burst, scope: kind, bucketOf: () => kind });
}
