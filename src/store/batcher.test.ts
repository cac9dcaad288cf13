import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batcher, type Settled } from './batcher.ts';

function recorder(answer: (items: number[]) => Settled<string>[] | Promise<Settled<string>[]>) {
  const batches: number[][] = [];
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const group = new Batcher<number, string>(async (items) => {
    batches.push(items);
    await gate;
    return answer(items);
  }, 3);
  return {
    group,
    batches,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    release: () => release(),
  };
}

const ok = (items: number[]) => items.map((i) => ({ ok: true as const, value: `r${i}` }));

test('items submitted in one turn share a batch; a lone item runs alone', async () => {
  const r = recorder(ok);
  assert.deepEqual(await Promise.all([r.group.submit(1), r.group.submit(2)]), ['r1', 'r2']);
  assert.equal(await r.group.submit(3), 'r3');
  assert.deepEqual(r.batches, [[1, 2], [3]]);
});

test('items arriving while a batch runs wait and go together into the next, at most maxBatch at a time', async () => {
  const r = recorder(ok);
  r.hold();
  const first = r.group.submit(1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(r.batches, [[1]], 'the first batch is running');
  const later = [2, 3, 4, 5].map((i) => r.group.submit(i));
  r.release();
  assert.deepEqual(await Promise.all([first, ...later]), ['r1', 'r2', 'r3', 'r4', 'r5']);
  assert.deepEqual(r.batches, [[1], [2, 3, 4], [5]]);
});

test('each item settles on its own result; a run that throws rejects its batch only', async () => {
  const r = recorder((items) =>
    items[0] === 9
      ? Promise.reject(new Error('batch down'))
      : items.map((i) => (i % 2 ? { ok: true as const, value: `r${i}` } : { ok: false as const, error: new Error(`e${i}`) })),
  );
  const settled = await Promise.allSettled([r.group.submit(1), r.group.submit(2)]);
  assert.deepEqual(
    settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
    ['r1', 'e2'],
  );
  await assert.rejects(r.group.submit(9), /batch down/);
  assert.equal(await r.group.submit(3), 'r3', 'and the next batch runs');
});
