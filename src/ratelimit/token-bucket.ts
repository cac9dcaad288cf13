// Token-bucket arithmetic with API Gateway's meaning: capacity = burst, refill = rate per second,
// one token per request. Pure: the caller passes the time, so tests drive it with any clock.

export interface BucketState {
  tokens: number;
  /** Milliseconds of the last refill. */
  at: number;
}

export interface BucketLimits {
  rate: number;
  burst: number;
}

// No wait time: the 429 sends the configured RETRY_AFTER_S (docs/api.md, "Rate limits"), not the bucket's own.
export type Decision = { allowed: true; remaining: number } | { allowed: false; remaining: 0 };

export function take(state: BucketState | undefined, limits: BucketLimits, now: number): { state: BucketState; decision: Decision } {
  const start = state ?? { tokens: limits.burst, at: now };
  const elapsed = Math.max(0, now - start.at) / 1000;
  const tokens = Math.min(limits.burst, start.tokens + elapsed * limits.rate);
  if (tokens >= 1) {
    return { state: { tokens: tokens - 1, at: now }, decision: { allowed: true, remaining: Math.floor(tokens - 1) } };
  }
  return { state: { tokens, at: now }, decision: { allowed: false, remaining: 0 } };
}
