// The throttle hooks. On the org and staff routes the throttle runs right after authentication
// (docs/architecture.md, "A request's path"): an authenticated request takes a token from its
// org's bucket and from the stage-wide one, a request with missing or invalid credentials one from
// its client's own bucket, so anonymous floods cannot starve the tenants. Public routes list their
// buckets on the route. 429 exactly as docs/api.md, "Rate limits" says (JSON, Retry-After,
// X-Correlation-Id header, no correlationId in the body), with `error.details.scope` naming the
// limit that refused (docs/api.md lists the scopes).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimiter } from './interface.ts';
import type { Decision } from './token-bucket.ts';
import { CORRELATION_HEADER } from '../http/correlation.ts';

export type Throttle = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** Which limit refused a request: `error.details.scope` of its 429. */
export type ThrottleScope = 'stage' | 'org' | 'anonymous' | 'quota' | 'mail' | 'address' | 'pixel' | 'asset' | 'click' | 'addin';

/** Answers the 429 of spec section 8 with the refusing limit's scope. */
export function tooManyRequests(request: FastifyRequest, reply: FastifyReply, scope: ThrottleScope, retryAfterS: number): void {
  reply
    .code(429)
    .header('retry-after', retryAfterS)
    .header(CORRELATION_HEADER, request.id)
    .type('application/json')
    .send({ error: { code: 'TOO_MANY_REQUESTS', message: `Rate limit exceeded: retry in ${retryAfterS} seconds.`, details: { scope } } });
}

/** Takes a token from the bucket `bucketOf` names for the request; 429 when there is none. */
export function throttle(
  limiter: RateLimiter,
  opts: { limit: number; retryAfterS: number; scope: ThrottleScope; bucketOf: (request: FastifyRequest) => string },
): Throttle {
  const answer = (decision: Decision, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    reply.header('x-ratelimit-limit', opts.limit);
    reply.header('x-ratelimit-remaining', decision.remaining);
    if (decision.allowed) return done();
    tooManyRequests(request, reply, opts.scope, opts.retryAfterS);
  };
  // A callback hook, and no promise when the bucket answers at once (in memory): this runs on
  // every throttled request.
  return (request, reply, done) => {
    const decision = limiter.take(opts.bucketOf(request));
    if (decision instanceof Promise) decision.then((d) => answer(d, request, reply, done), done);
    else answer(decision, request, reply, done);
  };
}

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

/** The bucket of the caller's org (`{prefix}{orgId}`); a caller without an org (staff) takes none. */
export function throttleByOrg(
  limiter: RateLimiter,
  opts: { limit: number; retryAfterS: number; scope: ThrottleScope; prefix: string },
): Throttle {
  const orgThrottle = throttle(limiter, { ...opts, bucketOf: (request) => opts.prefix + orgOf(request) });
  return (request, reply, done) => (orgOf(request) ? orgThrottle(request, reply, done) : done());
}

const orgOf = (request: FastifyRequest): string | undefined => {
  const p = request.principal;
  return p && p.kind !== 'staff' ? p.orgId : undefined;
};

/** After `authenticate`: the buckets of a request with a principal, the client's own bucket otherwise. */
export function throttleByCaller(buckets: { authenticated: Throttle; anonymous: Throttle }): Throttle {
  const { authenticated, anonymous } = buckets;
  return (request, reply, done) => (request.principal ? authenticated : anonymous)(request, reply, done);
}
