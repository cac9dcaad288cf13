// The embedded data directory's lock (src/store/data-dir-lock.ts): a live owner holds it; an owner
// that died, even one left a zombie that nothing reaps (a service killed with its parent, under a
// minimal init), does not; nor does another process that got the dead owner's pid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, lockDataDir, processStat } from '../src/store/data-dir-lock.ts';
import { waitFor } from './helpers/wait.ts';

const LOCK_MODULE = new URL('../src/store/data-dir-lock.ts', import.meta.url).href;

test('a zombie owner (killed, never reaped) does not hold the lock; a live one does', {
  skip: process.platform !== 'linux' && 'zombies are read from /proc',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigsvc-lock-'));
  // sh starts the owner in the background, prints its pid, and becomes `sleep`, which never reaps
  // it: once killed, the owner stays a zombie for as long as sleep runs.
  const owner = `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)}; lockDataDir(process.argv[1]); console.log('locked'); setInterval(() => {}, 1000);`;
  const parent = spawn('sh', ['-c', `"$0" --input-type=module -e "$1" "$2" & echo "pid $!"; exec sleep 120`, process.execPath, owner, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  parent.stdout.on('data', (d) => (out += d));
  try {
    await waitFor(() => /pid \d+/.test(out) && out.includes('locked'), 'the owner to take the lock');
    const pid = Number(/pid (\d+)/.exec(out)![1]);
    assert.equal(Number(readFileSync(join(dir, 'sigsvc.lock'), 'utf8').split(' ')[0]), pid);
    assert.throws(
      () => lockDataDir(dir),
      (err: Error) => err instanceof DataDirInUseError && err.message.includes(`in use by process ${pid}`),
    );

    process.kill(pid, 'SIGKILL');
    await waitFor(() => processStat(pid)?.state === 'Z', `process ${pid} to be a zombie`, 10_000);
    // kill(pid, 0) still answers for a zombie: that alone kept the lock held.
    assert.doesNotThrow(() => process.kill(pid, 0));
    const release = lockDataDir(dir);
    assert.equal(readFileSync(join(dir, 'sigsvc.lock'), 'utf8').split(' ')[0], String(process.pid));
    release();
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a lock naming a live process under another start time (the dead owner's pid, reused) is taken over; a bare pid of a live one is not", {
  skip: process.platform !== 'linux' && 'start times are read from /proc',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigsvc-lock-'));
  const other = spawn('sleep', ['120'], { stdio: 'ignore' });
  try {
    const stat = processStat(other.pid!)!;
    assert.ok(stat.startTime);
    writeFileSync(join(dir, 'sigsvc.lock'), `${other.pid} ${stat.startTime}`);
    assert.throws(() => lockDataDir(dir), DataDirInUseError, 'its own start time: the owner runs');
    writeFileSync(join(dir, 'sigsvc.lock'), String(other.pid));
    assert.throws(() => lockDataDir(dir), DataDirInUseError, 'a lock written before start times: the pid alone');
    writeFileSync(join(dir, 'sigsvc.lock'), `${other.pid} ${Number(stat.startTime) - 1}`);
    const release = lockDataDir(dir);
    release();
  } finally {
    other.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
