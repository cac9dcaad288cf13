// The throttle, as the first hook of the routes it guards: before authentication and before any
// database work, so a flood costs little. 429 exactly as spec section 8: JSON, Retry-After,
// X-Correlation-Id header, and no correlationId in the body.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RateLimiter } from './interface.ts';
import { CORRELATION_HEADER } from '../http/correlation.ts';

export function throttle(limiter: RateLimiter, bucket: string, opts: { limit: number; retryAfterS: number }): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const decision = await limiter.take(bucket);
    reply.header('x-ratelimit-limit', opts.limit);
    reply.header('x-ratelimit-remaining', decision.remaining);
    if (decision.allowed) return;
    return reply
      .code(429)
      .header('retry-after', opts.retryAfterS)
      .header(CORRELATION_HEADER, request.id)
      .type('application/json')
      .send({ error: { code: 'TOO_MANY_REQUESTS', message: `Rate limit exceeded: retry in ${opts.retryAfterS} seconds.` } });
  };
}
