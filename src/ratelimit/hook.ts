// The throttle, as the first hook of the routes it guards: before authentication and before any
// database work, so a flood costs little. 429 exactly as spec section 8: JSON, Retry-After,
// X-Correlation-Id header, and no correlationId in the body.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimiter } from './interface.ts';
import type { Decision } from './token-bucket.ts';
import { CORRELATION_HEADER } from '../http/correlation.ts';

export type Throttle = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

export function throttle(limiter: RateLimiter, bucket: string, opts: { limit: number; retryAfterS: number }): Throttle {
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
    const decision = limiter.take(bucket);
    if (decision instanceof Promise) decision.then((d) => answer(d, request, reply, done), done);
    else answer(decision, request, reply, done);
  };
}
