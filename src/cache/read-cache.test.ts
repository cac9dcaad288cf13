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
  await assert.rejects(
    off.cache.get('b', () => {
      throw new Error('at once');
    }),
    /at once/,
    'uncached, a loader that throws at once is a rejected promise too',
  );
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
  // A miss after the write, while the old load is still under way, does not join it: the writer reads its own write.
  const after = cache.get('k', async () => ({ v: row }));
  release();
  assert.deepEqual(await slow, { v: 1 }, 'the caller still gets what its load read');
  assert.deepEqual(await after, { v: 2 });
  assert.deepEqual(cache.peek('k'), { v: 2 }, 'and the cache holds the later read, not the old one');
});

test('concurrent misses of a key share one load; a load that fails stores nothing and the next miss loads again', async () => {
  const cache = new ReadCache<{ v: number }>({ max: 10, ttlMs: Infinity });
  let loads = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slowLoad = async () => {
    loads += 1;
    await gate;
    return { v: loads };
  };
  const misses = [cache.get('k', slowLoad), cache.get('k', slowLoad), cache.get('k', slowLoad)];
  release();
  assert.deepEqual(await Promise.all(misses), [{ v: 1 }, { v: 1 }, { v: 1 }]);
  assert.equal(loads, 1, 'three misses in flight at once, one query');
  assert.deepEqual(cache.peek('k'), { v: 1 });

  let failures = 0;
  const failing = async (): Promise<{ v: number }> => {
    failures += 1;
    throw new Error('database down');
  };
  await Promise.all([assert.rejects(cache.get('other', failing)), assert.rejects(cache.get('other', failing))]);
  assert.equal(failures, 1, 'both waited for the one failing load');
  assert.equal(cache.has('other'), false);
  assert.deepEqual(await cache.get('other', async () => ({ v: 7 })), { v: 7 }, 'a failed load is not shared with later misses');
  // A loader that throws before its first await is a failed load too, not a key stuck loading.
  await assert.rejects(
    cache.get('sync', () => {
      throw new Error('at once');
    }),
  );
  assert.deepEqual(await cache.get('sync', async () => ({ v: 3 })), { v: 3 });
});
