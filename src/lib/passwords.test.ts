// Password derivations take turns: at most DERIVATIONS_AT_ONCE run at once, whatever the number of
// sign-ins, and every one of them still ends with the right answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DERIVATIONS_AT_ONCE, createScryptHasher, derivationsNow, verifyPassword } from './passwords.ts';

const cheap = createScryptHasher({ N: 1024, r: 8, p: 1 });

test('more sign-ins than the bound: the rest wait their turn, and all are answered', async () => {
  const stored = await cheap.hash('a long test password');
  const extra = 3;
  const checks = Array.from({ length: DERIVATIONS_AT_ONCE + extra }, (_, i) => verifyPassword(i % 2 ? 'a long test password' : 'not the password', stored));
  // p-limit starts the first ones a few microtasks later: no derivation can end before then.
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.deepEqual(derivationsNow(), { running: DERIVATIONS_AT_ONCE, waiting: extra });
  assert.deepEqual(
    await Promise.all(checks),
    checks.map((_, i) => i % 2 === 1),
  );
  assert.deepEqual(derivationsNow(), { running: 0, waiting: 0 });
});

test('the bound is at least one and leaves one of libuv’s four threads free', () => {
  assert.ok(DERIVATIONS_AT_ONCE >= 1 && DERIVATIONS_AT_ONCE <= 3);
});
