import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monthEnd, monthOf } from './counter.ts';
import { hourOf, untilNextHour } from '../mail/caps.ts';

test('the quota month is the calendar month in UTC; it ends at the first instant of the next', () => {
  assert.equal(monthOf(new Date('2026-12-31T23:59:59.999Z')), '2026-12');
  assert.equal(monthEnd(new Date('2026-12-31T23:59:59.999Z')).toISOString(), '2027-01-01T00:00:00.000Z');
  assert.equal(monthOf(new Date('2027-01-01T00:00:00.000Z')), '2027-01');
  assert.equal(monthEnd(new Date('2028-02-10T12:00:00.000Z')).toISOString(), '2028-03-01T00:00:00.000Z');
  // A time zone ahead of UTC changes nothing: the instant decides.
  assert.equal(monthOf(new Date('2027-01-01T00:30:00+01:00')), '2026-12');
});

test('the mail caps count calendar hours', () => {
  const at = new Date('2026-11-25T20:59:30.250Z');
  assert.equal(hourOf(at).toISOString(), '2026-11-25T20:00:00.000Z');
  assert.equal(untilNextHour(at), 29_750);
  assert.equal(untilNextHour(new Date('2026-11-25T21:00:00.000Z')), 3600_000);
});
