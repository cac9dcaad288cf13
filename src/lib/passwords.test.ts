// Password derivations take turns: at most DERIVATIONS_AT_ONCE run at once, whatever the number of
// sign-ins; every one still ends with the right answer, and one that fails gives its turn back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { DERIVATIONS_AT_ONCE, createScryptHasher, derivationsNow, scryptHasher, verifyPassword } from './passwords.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('more sign-ins than the bound: the rest wait their turn, and all are answered', async () => {
  // The production cost (~50 ms each), so none can end within the turn of the event loop below.
  const stored = await scryptHasher.hash('a long test password');
  const extra = 3;
  const checks = Array.from({ length: DERIVATIONS_AT_ONCE + extra }, (_, i) => verifyPassword(i % 2 ? 'a long test password' : 'not the password', stored));
  await turn();
  assert.deepEqual(derivationsNow(), { running: DERIVATIONS_AT_ONCE, waiting: extra });
  assert.deepEqual(
    await Promise.all(checks),
    checks.map((_, i) => i % 2 === 1),
  );
  assert.deepEqual(derivationsNow(), { running: 0, waiting: 0 });
});

test('a derivation that fails (a stored cost scrypt refuses) gives its turn back', async () => {
  const refused = Array.from({ length: DERIVATIONS_AT_ONCE + 2 }, () => verifyPassword('a long test password', 'scrypt$3$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5'));
  for (const r of await Promise.allSettled(refused)) assert.equal(r.status, 'rejected');
  assert.deepEqual(derivationsNow(), { running: 0, waiting: 0 });
  const stored = await scryptHasher.hash('a long test password');
  assert.equal(await verifyPassword('a long test password', stored), true);
});

test('a stored hash asking for more than 4 parallel passes is refused before any derivation', async () => {
  const stored = await scryptHasher.hash('a long test password');
  const greedy = stored.replace(/^scrypt\$32768\$8\$1\$/, 'scrypt$16384$1$64$');
  assert.notEqual(greedy, stored);
  await assert.rejects(verifyPassword('a long test password', greedy), RangeError);
  assert.deepEqual(derivationsNow(), { running: 0, waiting: 0 });
  // Nor can a hasher make hashes it would refuse to verify.
  assert.throws(() => createScryptHasher({ N: 1024, r: 8, p: 5 }), RangeError);
});

test('the bound: one per CPU, and one of libuv’s threads left free', () => {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  assert.equal(DERIVATIONS_AT_ONCE, Math.max(1, Math.min(availableParallelism(), pool - 1)));
});
