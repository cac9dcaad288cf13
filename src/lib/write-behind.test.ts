import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBehindCounts } from './write-behind.ts';

type Row = { key: string; n: number };

test('counts add up by key and go out in one write per flush; a failed write keeps them for the next', async () => {
  const writes: Row[][] = [];
  let fail = true;
  const errors: number[] = [];
  const counts = new WriteBehindCounts<Row>({
    write: async (rows) => {
      if (fail) throw new Error('database away');
      writes.push(rows.map((r) => ({ ...r })));
    },
    keyOf: (r) => r.key,
    merge: (into, from) => {
      into.n += from.n;
    },
    onError: (_err, rows) => errors.push(rows),
  });
  counts.add({ key: 'a', n: 1 });
  counts.add({ key: 'a', n: 2 });
  counts.add({ key: 'b', n: 1 });
  await counts.flush();
  assert.deepEqual(errors, [2], 'one failed write of two rows');
  assert.deepEqual(writes, []);
  counts.add({ key: 'a', n: 4 });
  fail = false;
  await counts.flush();
  assert.deepEqual(
    writes,
    [
      [
        { key: 'a', n: 7 },
        { key: 'b', n: 1 },
      ],
    ],
    'kept rows and new counts, added up',
  );
  await counts.flush();
  assert.equal(writes.length, 1, 'nothing pending: no write');
  counts.add({ key: 'c', n: 1 });
  await counts.close();
  assert.deepEqual(writes[1], [{ key: 'c', n: 1 }], 'close writes what is pending');
});
