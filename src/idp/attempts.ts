// SIGNIN_ATTEMPTS_PER_MINUTE per client address (docs/api.md, "Signing in (OpenID Connect)"; it
// counts attempts, not visits): password and code steps share one bucket
// (each is a guess), starting a sign-in with a form another, "Forgot your password?" a third. The
// buckets are the shared rate-limit module's (src/ratelimit), so with REDIS_URL every instance
// counts against the same ones.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../ratelimit/interface.ts';

export type AttemptBucket = 'signin' | 'authorize' | 'forgot';

/** Takes an attempt from the address's bucket; when there is none, sets Retry-After and answers false. */
export type TakeAttempt = (request: FastifyRequest, reply: FastifyReply, bucket: AttemptBucket) => Promise<boolean>;

export function signInAttempts(limiter: RateLimiter, attemptsPerMinute: number): TakeAttempt {
  // An empty bucket holds a token again within one refill interval (60 s / the limit).
  const retryAfterS = String(Math.max(1, Math.ceil(60 / attemptsPerMinute)));
  return async (request, reply, bucket) => {
    const decision = await limiter.take(`${bucket}:${request.ip}`);
    if (!decision.allowed) reply.header('retry-after', retryAfterS);
    return decision.allowed;
  };
}
