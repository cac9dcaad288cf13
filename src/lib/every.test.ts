import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { every } from './every.ts';

test('every: runs never overlap, a failure is logged and the next tick runs again, stop waits for the run under way', async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const warnings: unknown[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  let finished = false;
  const stop = every(
    5,
    async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      runs++;
      await new Promise((r) => setTimeout(r, 30));
      active--;
      if (runs === 1) throw new Error('first run fails');
      finished = true;
    },
    { logger, message: 'task failed' },
  );
  while (runs < 3) await new Promise((r) => setTimeout(r, 5));
  await stop();
  assert.equal(active, 0, 'stop waited for the run under way');
  assert.equal(maxActive, 1, 'runs never overlapped (ticks every 5 ms, runs last 30 ms)');
  assert.ok(finished);
  assert.equal(warnings.length, 1);
  const runsAtStop = runs;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(runs, runsAtStop, 'nothing runs after stop');
});
