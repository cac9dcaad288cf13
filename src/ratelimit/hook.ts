// The throttle hooks. On the org and staff routes the throttle runs right after authentication
// (docs/architecture.md, "A request's path"): an authenticated request takes a token from the
// stage-wide bucket,
// a request with missing or invalid credentials one from its client's own bucket, so anonymous
// floods cannot starve the tenants. The pixel lists its own bucket on its route. 429 exactly as
// docs/api.md, "Rate limits" says: JSON, Retry-After, X-Correlation-Id header, and no correlationId in the body.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimiter } from './interface.ts';
import type { Decision } from './token-bucket.ts';
import { CORRELATION_HEADER } from '../http/correlation.ts';

export type Throttle = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** Takes a token from the bucket `bucketOf` names for the request; 429 when there is none. */
export function throttle(
  limiter: RateLimiter,
  opts: { limit: number; retryAfterS: number; bucketOf: (request: FastifyRequest) => string },
): Throttle {
  const answer = (decision: Decision, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    reply.header('x-ratelimit-limit', opts.limit);
    reply.header('x-ratelimit-remaining', decision.remaining);
    if (decision.allowed) return done();
    reply
      .code(429)
      .header('retry-after', opts.retryAfterS)
      .header(CORRELATION_HEADER, request.id)
      .type('application/json')
      .send({ error: { code: 'TOO_MANY_REQUESTS', message: `Rate limit exceeded: retry in ${opts.retryAfterS} seconds.` } });
  };
  // A callback hook, and no promise when the bucket answers at once (in memory): this runs on
  // every throttled request.
  return (request, reply, done) => {
    const decision = limiter.take(opts.bucketOf(request));
    if (decision instanceof Promise) decision.then((d) => answer(d, request, reply, done), done);
    else answer(decision, request, reply, done);
  };
}

/** After `authenticate`: the stage bucket for a request with a principal, the client's bucket otherwise. */
export function throttleByCaller(buckets: { authenticated: Throttle; anonymous: Throttle }): Throttle {
  const { authenticated, anonymous } = buckets;
  return (request, reply, done) => (request.principal ? authenticated : anonymous)(request, reply, done);
}
