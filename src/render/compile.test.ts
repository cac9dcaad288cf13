import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coarseThreadCpuMs, threadCpuMs } from './compile.ts';

test('the CPU clock Liquid reads is a system call at most once per ms of wall time, and only a few ms behind', () => {
  const real = process.threadCpuUsage.bind(process);
  let reads = 0;
  process.threadCpuUsage = ((previous?: NodeJS.CpuUsage) => {
    reads++;
    return real(previous);
  }) as typeof process.threadCpuUsage;
  try {
    const started = performance.now();
    let last = 0;
    // Liquid asks before each node: a signature template of ~30 nodes, 20,000 times.
    for (let i = 0; i < 600_000; i++) {
      const now = coarseThreadCpuMs();
      assert.ok(now >= last, 'never goes back');
      last = now;
    }
    const elapsedMs = performance.now() - started;
    assert.ok(reads <= elapsedMs + 2, `${reads} reads of the CPU time in ${elapsedMs.toFixed(0)} ms`);
    const coarse = coarseThreadCpuMs();
    const lag = threadCpuMs() - coarse;
    // At most 1 ms of wall time behind, but the kernel accounts a thread's CPU time in steps (a
    // scheduler tick, 4 ms at HZ=250), so a reading can jump by more than the wall time between
    // two reads: a few ms against a 100 ms render limit.
    assert.ok(lag >= 0 && lag <= 15, `${lag} ms behind`);
  } finally {
    process.threadCpuUsage = real;
  }
});
