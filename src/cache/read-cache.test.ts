import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadCache } from './read-cache.ts';

/** A cache over a counting loader: how many loads each key cost. */
function counted(opts: { max: number; ttlMs: number }) {
  const loads = new Map<string, number>();
  const cache = new ReadCache<{ key: string }>(opts);
  const get = (key: string) =>
    cache.get(key, async () => {
      loads.set(key, (loads.get(key) ?? 0) + 1);
      return key.startsWith('missing') ? undefined : { key };
    });
  return { cache, get, loads };
}

test('a read cache holds at most max entries, pushing out the least recently used', async () => {
  const { get, loads } = counted({ max: 3, ttlMs: Infinity });
  for (const key of ['a', 'b', 'c']) await get(key);
  await get('a'); // a is now the most recently used; b the least
  await get('d'); // pushes out b
  for (const key of ['a', 'c', 'd']) assert.deepEqual(await get(key), { key });
  assert.deepEqual(Object.fromEntries(loads), { a: 1, b: 1, c: 1, d: 1 });
  await get('b');
  assert.equal(loads.get('b'), 2, 'b was pushed out and is loaded again');
});

test('a read cache remembers misses, forgets on delete, and caches nothing with a TTL of 0', async () => {
  const { cache, get, loads } = counted({ max: 10, ttlMs: Infinity });
  assert.equal(await get('missing-1'), undefined);
  assert.equal(await get('missing-1'), undefined);
  assert.equal(loads.get('missing-1'), 1, 'an unknown key costs one load');
  await get('a');
  cache.delete('a');
  await get('a');
  assert.equal(loads.get('a'), 2, 'a deleted entry is loaded again');

  const off = counted({ max: 10, ttlMs: 0 });
  await off.get('a');
  await off.get('a');
  assert.equal(off.loads.get('a'), 2);
});

test('a key forgotten while its load is under way does not get the value that load read', async () => {
  const cache = new ReadCache<{ v: number }>({ max: 10, ttlMs: Infinity });
  let row = 1;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // A read that saw the row before a write, and answers after the write forgot the key.
  const slow = cache.get('k', async () => {
    const read = { v: row };
    await gate;
    return read;
  });
  row = 2;
  cache.delete('k');
  release();
  assert.deepEqual(await slow, { v: 1 }, 'the caller still gets what its load read');
  assert.equal(cache.peek('k'), undefined, 'but the cache does not hold it');
  assert.deepEqual(await cache.get('k', async () => ({ v: row })), { v: 2 });
  assert.deepEqual(cache.peek('k'), { v: 2 });
});

test('of two loads of one key, the later one is kept; a load that fails stores nothing', async () => {
  const cache = new ReadCache<{ v: number }>({ max: 10, ttlMs: Infinity });
  let releaseFirst!: () => void;
  const first = cache.get('k', async () => {
    await new Promise<void>((resolve) => (releaseFirst = resolve));
    return { v: 1 };
  });
  const second = cache.get('k', async () => ({ v: 2 }));
  assert.deepEqual(await second, { v: 2 });
  releaseFirst();
  await first;
  assert.deepEqual(cache.peek('k'), { v: 2 }, 'the older load does not overwrite the newer');
  await assert.rejects(cache.get('other', async () => Promise.reject(new Error('database down'))));
  assert.equal(cache.has('other'), false);
});
