// `npm start` as a supervisor runs it (a container's PID 1, a process manager): SIGTERM to the npm
// process stops the service cleanly (port closed, lock released, no process left), and a second
// `npm start` on the same DATA_DIR says the data directory is in use, without a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers/process.ts';
import { freePort } from './helpers/server.ts';
import { seededDataDir } from './helpers/snapshot.ts';

/** The environment minus the service's own variables and the test runner's. */
function env(extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|PORT|HOST|STAGE|DATA_DIR|NODE_TEST_CONTEXT|LOG_LEVEL|npm_.*)$/i.test(k)) out[k] = v;
  }
  return { ...out, LOG_LEVEL: 'info', ...extra };
}

function npmStart(extra: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );

/** Polls until `check` holds; a safety net of `ms` only (a 2-core machine shared by others). */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('npm start: SIGTERM to npm stops the service; a second one on the same DATA_DIR prints the lock message alone', async () => {
  const { dir, cleanup } = await seededDataDir('sigsvc-supervisor-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health`;
  const first = npmStart({ PORT: String(port), DATA_DIR: dir, DATABASE_URL: '' });
  let servicePid: number | undefined;
  try {
    await until(async () => first.child.exitCode === null && (await answers(url)), 110_000, `the service to answer:\n${first.output()}`);
    const lock = join(dir, 'sigsvc.lock');
    servicePid = Number(readFileSync(lock, 'utf8').split(' ')[0]); // "<pid> <start time>"
    assert.ok(servicePid > 0 && servicePid !== first.child.pid, 'the service is a process of its own under npm');

    // A second service on the same data directory: the lock's message, and no stack trace.
    const second = npmStart({ PORT: String(await freePort()), DATA_DIR: dir, DATABASE_URL: '' });
    const code = await second.exited;
    assert.notEqual(code, 0);
    const out = second.output();
    assert.match(out, new RegExp(`failed to start: the embedded database in .* is in use by process ${servicePid} \\(a running service\\?\\): stop it first`));
    assert.doesNotMatch(out, /^\s+at /m, `no stack trace:\n${out}`);
    assert.doesNotMatch(out, /DataDirInUseError|data-dir-lock\.ts/, out);

    // The supervisor's stop: SIGTERM to the process it started, npm.
    first.child.kill('SIGTERM');
    await until(async () => !(await answers(url)), 30_000, 'the port to close');
    await until(() => !alive(servicePid as number), 30_000, `process ${servicePid} to exit`);
    await first.exited;
    assert.ok(!existsSync(lock), 'a clean stop releases the lock');
    assert.match(first.output(), /"msg":"stopped"/, first.output());
  } finally {
    if (servicePid && alive(servicePid)) process.kill(servicePid, 'SIGKILL');
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
    await cleanup();
  }
});
