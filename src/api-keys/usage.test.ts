import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { KeyUsageRecorder } from './usage.ts';

test('lastUsedAt: the first use is written at once, then at most once a minute per key, in batches', async () => {
  const writes: { keyId: string; at: Date }[][] = [];
  const recorder = new KeyUsageRecorder(async (uses) => void writes.push(uses), pino({ level: 'silent' }));
  const t0 = Date.parse('2026-11-22T10:00:00Z');
  recorder.record('a', new Date(t0));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(writes, [[{ keyId: 'a', at: new Date(t0) }]], 'first use: written on the next tick');
  for (let s = 1; s < 60; s += 7) recorder.record('a', new Date(t0 + s * 1000));
  recorder.record('b', new Date(t0 + 5_000));
  await recorder.flush();
  assert.equal(writes.length, 2);
  assert.deepEqual(writes[1], [{ keyId: 'b', at: new Date(t0 + 5_000) }], 'key a within its minute: not written again');
  recorder.record('a', new Date(t0 + 61_000));
  await recorder.close();
  assert.deepEqual(writes[2], [{ keyId: 'a', at: new Date(t0 + 61_000) }]);
});

test('a failed write is retried by the next use instead of waiting out the minute', async () => {
  let fail = true;
  const writes: string[] = [];
  const recorder = new KeyUsageRecorder(
    async (uses) => {
      if (fail) throw new Error('db down');
      writes.push(...uses.map((u) => u.keyId));
    },
    pino({ level: 'silent' }),
  );
  recorder.record('a', new Date(1000));
  await recorder.flush();
  fail = false;
  recorder.record('a', new Date(2000));
  await recorder.close();
  assert.deepEqual(writes, ['a']);
});
