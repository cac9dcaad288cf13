// The wakeups' dispatch and timers, given notifications directly (the database's side, the
// trigger and LISTEN, is tested end to end by test/job-wakeups.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listenForJobs, parseWakeup } from './wakeups.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wakeups over a channel the test sends on; pokes recorded with their time. */
async function harness(kinds: string[]) {
  let send: (payload: string) => void = () => {};
  const wakeups = await listenForJobs({
    listen: async (_channel, onPayload) => {
      send = onPayload;
      return () => {};
    },
  });
  const pokes: number[] = [];
  const stop = wakeups.subscribe(
    (kind) => kinds.includes(kind),
    () => pokes.push(performance.now()),
  );
  return { send: (payload: string) => send(payload), pokes, stop, close: () => wakeups.close() };
}

test('a wakeup is the kind and the milliseconds until the job is due; anything else is ignored', () => {
  assert.deepEqual(parseWakeup('webhook.drain 0'), { kind: 'webhook.drain', dueInMs: 0 });
  assert.deepEqual(parseWakeup('mail.send 1500'), { kind: 'mail.send', dueInMs: 1500 });
  for (const bad of ['', 'webhook.drain', ' 5', 'mail.send -1', 'mail.send soon']) assert.equal(parseWakeup(bad), undefined, bad);
});

test('a job due now pokes at once; only the kinds a queue handles poke it', async () => {
  const h = await harness(['mail.send']);
  h.send('mail.send 0');
  h.send('google.push 0');
  h.send('not a wakeup');
  assert.equal(h.pokes.length, 1);
  h.close();
});

test('each delayed job pokes once, when it is due, in the order of their due times', async () => {
  const h = await harness(['mail.send']);
  const sent = performance.now();
  for (const ms of [120, 40, 80]) h.send(`mail.send ${ms}`);
  await sleep(250);
  assert.equal(h.pokes.length, 3, `one poke a job, not two (${h.pokes.map((p) => Math.round(p - sent)).join(', ')} ms)`);
  for (const [i, at] of h.pokes.entries()) assert.ok(at - sent >= [40, 80, 120][i]! - 2, `poke ${i} at ${Math.round(at - sent)} ms`);
  h.close();
});

test('a full list of due times keeps the earliest: a job due soon after 1,000 due later still pokes', async () => {
  const h = await harness(['mail.send']);
  for (let i = 0; i < 1000; i++) h.send(`mail.send ${1_800_000 + i}`);
  h.send('mail.send 30');
  await sleep(120);
  assert.equal(h.pokes.length, 1);
  h.close();
});

test('a queue that stopped is not poked, and no timer keeps the process alive', async () => {
  const h = await harness(['mail.send']);
  h.send('mail.send 50');
  h.stop();
  await sleep(100);
  assert.deepEqual(h.pokes, []);
  h.send('mail.send 3000000');
  h.close();
});
