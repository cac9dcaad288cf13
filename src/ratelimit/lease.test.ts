// The size of a lease (docs/operations.md, "Rate limits across instances"): what the bucket refills
// in 10 ms, at least 10 tokens, at most RATE_LIMIT_LEASE and a tenth of the burst; none at 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseSize } from './lease.ts';

const DEFAULT_MAX = 1000;

test('buckets of the default limits lease 10 tokens, or a tenth of a smaller burst', () => {
  assert.equal(leaseSize({ rate: 100, burst: 200 }, DEFAULT_MAX), 10);
  assert.equal(leaseSize({ rate: 50, burst: 100 }, DEFAULT_MAX), 10);
  assert.equal(leaseSize({ rate: 5, burst: 20 }, DEFAULT_MAX), 2);
  assert.equal(leaseSize({ rate: 1, burst: 5 }, DEFAULT_MAX), 1, 'a bucket of under 20: every request asks Redis');
});

test('a bucket of high limits leases what it refills in 10 ms, within a tenth of its burst and RATE_LIMIT_LEASE', () => {
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, DEFAULT_MAX), 100);
  assert.equal(leaseSize({ rate: 10_000, burst: 500 }, DEFAULT_MAX), 50, 'a tenth of the burst');
  assert.equal(leaseSize({ rate: 1e9, burst: 1e9 }, DEFAULT_MAX), DEFAULT_MAX, 'RATE_LIMIT_LEASE');
});

test('RATE_LIMIT_LEASE bounds every lease; 1 leases nothing', () => {
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, 2), 2);
  assert.equal(leaseSize({ rate: 100, burst: 200 }, 5), 5);
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, 1), 1);
  assert.equal(leaseSize({ rate: 100, burst: 200 }, 1), 1);
});
