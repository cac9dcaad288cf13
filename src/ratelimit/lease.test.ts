// The size of a lease (docs/operations.md, "Rate limits across instances"): RATE_LIMIT_LEASE tokens,
// or 10 ms of the bucket's refill when that is more, at most a tenth of the burst; no lease at 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseSize } from './lease.ts';

test('buckets of the default limits lease RATE_LIMIT_LEASE tokens, or a tenth of a smaller burst', () => {
  assert.equal(leaseSize({ rate: 100, burst: 200 }, 10), 10);
  assert.equal(leaseSize({ rate: 50, burst: 100 }, 10), 10);
  assert.equal(leaseSize({ rate: 5, burst: 20 }, 10), 2);
  assert.equal(leaseSize({ rate: 1, burst: 5 }, 10), 1, 'a bucket of under 20: every request asks Redis');
});

test('a bucket of high limits leases what it refills in 10 ms, within a tenth of its burst', () => {
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, 10), 100);
  assert.equal(leaseSize({ rate: 10_000, burst: 500 }, 10), 50, 'a tenth of the burst');
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, 500), 500, 'RATE_LIMIT_LEASE above 10 ms of refill');
  assert.equal(leaseSize({ rate: 1e9, burst: 1e9 }, 10), 1e7);
});

test('RATE_LIMIT_LEASE=1 leases nothing, whatever the limits', () => {
  assert.equal(leaseSize({ rate: 10_000, burst: 20_000 }, 1), 1);
  assert.equal(leaseSize({ rate: 100, burst: 200 }, 1), 1);
});
