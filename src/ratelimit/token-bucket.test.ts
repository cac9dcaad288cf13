import { test } from 'node:test';
import assert from 'node:assert/strict';
import { take, type BucketState } from './token-bucket.ts';
import { MemoryRateLimiter } from './memory.ts';

const limits = { rate: 100, burst: 200 };

test('a new bucket is full: burst requests pass, the next one waits', () => {
  let state: BucketState | undefined;
  for (let i = 0; i < 200; i++) {
    const r = take(state, limits, 0);
    assert.equal(r.decision.allowed, true, `request ${i}`);
    state = r.state;
  }
  const refused = take(state, limits, 0);
  assert.equal(refused.decision.allowed, false);
  assert.equal(refused.state.tokens, 0);
});

test('refill at rate per second, fractional tokens kept', () => {
  let state: BucketState = { tokens: 0, at: 0 };
  let r = take(state, limits, 5); // 0.5 token
  assert.equal(r.decision.allowed, false);
  state = r.state;
  r = take(state, limits, 10); // 0.5 + 0.5 = 1
  assert.equal(r.decision.allowed, true);
  assert.ok(Math.abs(r.state.tokens) < 1e-9);
  r = take({ tokens: 0.25, at: 0 }, { rate: 1, burst: 5 }, 700); // 0.95
  assert.equal(r.decision.allowed, false);
  assert.ok(Math.abs(r.state.tokens - 0.95) < 1e-9, 'the fraction is kept for the next request');
});

test('a long idle refills to the burst, never beyond', () => {
  const r = take({ tokens: 3, at: 0 }, limits, 3_600_000);
  assert.equal(r.state.tokens, 199);
});

test('the clock going backwards does not add tokens', () => {
  const r = take({ tokens: 0.5, at: 10_000 }, limits, 9_000);
  assert.equal(r.decision.allowed, false);
});

test('the memory limiter keeps one bucket per name', () => {
  let now = 0;
  const limiter = new MemoryRateLimiter({ rate: 1, burst: 2 }, () => now);
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
  now = 1000;
  assert.equal(limiter.take('a').allowed, true);
});
