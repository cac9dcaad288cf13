// The quota step of the org routes: after both buckets, an API-key request counts against its
// org's month (DECISIONS wave 3, "Monthly quota"); people using the apps (ID tokens) do not.
import type { Refusal, Throttle } from '../ratelimit/hook.ts';
import { tooManyRequests } from '../ratelimit/hook.ts';
import type { QuotaCounter } from './counter.ts';

export function quotaStep(counter: QuotaCounter, refusal: Pick<Refusal, 'delayMs'>): Throttle {
  return (request, reply, done) => {
    const principal = request.principal;
    if (principal?.kind !== 'apiKey') return done();
    const decision = counter.admit(principal.orgId);
    if (decision.allowed) return done();
    tooManyRequests(request, reply, 'quota', { retryAfterS: decision.retryAfterS, delayMs: refusal.delayMs });
  };
}
