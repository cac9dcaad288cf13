// `npm test`: the unit tests in one process; then the other test files shared out among three
// processes (SIGSVC_TEST_SHARDS) that each run theirs one after the other (the browser files together in one of them),
// with the type checks and Biome's check beside them; then, in one more such process, the files
// that must not run beside others.
//
// Why shards: a test file's process costs ~2.5 s of CPU before its first test (Node and the
// service's modules loaded, an embedded database and render threads started), which for ~55 files
// was most of the suite's CPU. A shard pays it once, and its servers share one embedded database
// and one render pool (test/helpers/shared-resources.ts). Files in a shard share a process: each closes what
// it opens in its own hooks (startServer refuses to start while another file's server is open).
// The shards are balanced by how long each file took in the last run here (kept in the temp
// directory, written by test/helpers/durations-reporter.ts), and by file size before any run.
//
// Test processes run with --liftoff-only, as the service does (it saves ~0.5 s of CPU per embedded
// database started: V8 no longer recompiles PostgreSQL's WebAssembly in the background), but not
// with the service's heap limits (src/runtime.ts): those trade CPU for a smaller RSS, and cost the
// suite ~25 s of CPU in collections. The service started as a process (test/helpers/process.ts) has
// all its flags. Arguments are passed on to the runner (e.g. `npm test -- --test-reporter=dot`).
import { type ChildProcess, spawn } from 'node:child_process';
import { globSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '../src/runtime.ts';
import { dropFileDatabases } from './helpers/file-database.ts';
import { globalSetup } from './helpers/global-setup.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { durationsFile } from './helpers/durations-reporter.ts';

const ROOT = new URL('../', import.meta.url);
const HEAP_FLAGS = /^--(max-semi-space-size|heap-growing-percent)=/;
// A young generation larger than V8's default: fewer scavenges for the shards' churn of short-lived
// objects. One npm test each on a 2-core machine (docs/testing.md): the default 427 s of CPU, 32 MB
// 401 s (−6 %), 64 MB 432 s.
const NODE_FLAGS = [...SERVICE_NODE_FLAGS.filter((flag) => !HEAP_FLAGS.test(flag)), '--max-semi-space-size=32'];
// Three: four were tried (the shards wait part of their time, and three kept two cores ~60 % busy),
// but on a quiet 2-core machine every file slowed as much: 207 and 214 s against 206 (docs/testing.md).
// SIGSVC_TEST_SHARDS chooses another count.
const SHARDS = Number(process.env.SIGSVC_TEST_SHARDS) || 3;
// Per store: a file's time on PostgreSQL is not its time on the embedded database.
const STORE = ON_POSTGRES ? 'postgres' : 'embedded';
const DURATIONS = durationsFile(STORE);
// Node's compile cache (its code cache and the type-stripped sources, kept by content hash) for
// every process of the run, the service's child processes included.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'sigsvc-node-compile-cache');
const userArgs = process.argv.slice(2);

// They measure time: what two instances admit in a second, and how long /health waits while the
// service serves hostile input. Beside the shards (one of them driving Chromium) the machine's
// load, not the service, decides them: event-loop-stalls' 500 ms bound failed in CI at 570 ms
// once the browser files moved into a shard, and render-hostile-stall's 1-s bound at 1,050 ms in
// a shard on a slow machine.
const ALONE_FILES = ['test/multi-instance.test.ts', 'test/event-loop-stalls.test.ts', 'test/render-hostile-stall.test.ts'];
const alone = (f: string) => ALONE_FILES.includes(f);
// The browser tests (`*.browser.test.ts`) go together into one shard, beside the other shards: its
// process shares one Chromium among them (test/helpers/chromium.ts). Run after the shards, one at
// a time, they left a core mostly idle for a third of the suite (the service's thread and the
// browser's take turns).
const BROWSER = /\.browser\.test\.ts$/;
const files = globSync('test/**/*.test.ts', { cwd: ROOT }).sort();
// The unit tests beside the code (src/**/*.test.ts) test pure modules: they need no database.
const unitFiles = globSync('src/**/*.test.ts', { cwd: ROOT }).sort();

/**
 * The runner's options for one process that runs its files one after the other: the caller's
 * reporters (spec by default), and for a shard ours and the per-shard database.
 */
function testArgs(durationsFile?: string): string[] {
  const reporters = userArgs.filter((a) => a.startsWith('--test-reporter='));
  const destinations = userArgs.filter((a) => a.startsWith('--test-reporter-destination='));
  const others = userArgs.filter((a) => !reporters.includes(a) && !destinations.includes(a));
  const output = reporters.length > 0 ? reporters : ['--test-reporter=spec'];
  const outputTo = destinations.length > 0 ? destinations : output.map(() => '--test-reporter-destination=stdout');
  const ours = durationsFile ? ['--test-reporter=./test/helpers/durations-reporter.ts', `--test-reporter-destination=${durationsFile}`] : [];
  return [
    ...NODE_FLAGS,
    '--test',
    '--test-isolation=none',
    // On PostgreSQL, each shard gets a database of its own (a clone of a migrated template).
    ...(durationsFile ? ['--import=./test/helpers/file-database.ts'] : []),
    '--test-timeout=120000',
    '--test-force-exit',
    ...output,
    ...outputTo,
    ...ours,
    ...others,
  ];
}

// The type checks and Biome's format and lint check (its errors fail the run), run at once and
// beside the shards: each is one thread for a few seconds. A failed check ends the run there (the
// shards are stopped).
const CHECKS = [
  ['node_modules/typescript/bin/tsc', '--noEmit'],
  ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'web'],
  ['node_modules/@biomejs/biome/bin/biome', 'check', '--diagnostic-level=error', '.'],
];

/** Runs the checks at once; each one's output is printed whole when it ends. */
async function runChecks(): Promise<boolean> {
  const results = await Promise.all(
    CHECKS.map(
      (args) =>
        new Promise<boolean>((resolve, reject) => {
          const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
          const output: Buffer[] = [];
          child.stdout.on('data', (d: Buffer) => output.push(d));
          child.stderr.on('data', (d: Buffer) => output.push(d));
          child.on('error', reject);
          child.on('close', (code) => {
            const shown = `${args[0]!.split('/').at(-1)} ${args.slice(1).join(' ')}`;
            if (code !== 0 || output.length > 0) process.stdout.write(`\n── ${shown}: ${code === 0 ? 'passed' : 'FAILED'} ──\n${Buffer.concat(output)}`);
            resolve(code === 0);
          });
        }),
    ),
  );
  return results.every(Boolean);
}

/** The unit tests: one process, no database. */
function runUnits(chosen: string[]): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...testArgs(), ...chosen], { cwd: ROOT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The committed figures for this store (test/durations.json: `{embedded: {file: s}, postgres: {…}}`). */
function committedDurations(): Record<string, number> {
  const all = readDurations(new URL('test/durations.json', ROOT).pathname) as unknown as Record<string, Record<string, number>>;
  return all[STORE] ?? {};
}

/** Seconds by file in a durations file; none when it is missing (no run yet) or unreadable (a shard that died). */
function readDurations(path: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Each file's expected seconds: the last run's on this machine, else the committed figures
 * (test/durations.json, `npm run test:durations` refreshes them), else its size scaled by the
 * recorded files' seconds per byte. Without the committed figures a fresh clone shared its files
 * out by size alone: shards of 137, 193 and 234 s, where the next run's took 120–206 s.
 */
function expectedSeconds(chosen: string[]): Map<string, number> {
  const recorded = { ...committedDurations(), ...readDurations(DURATIONS) };
  const size = (f: string) => statSync(new URL(f, ROOT)).size;
  const known = chosen.filter((f) => typeof recorded[f] === 'number');
  const perByte = known.length > 0 ? known.reduce((s, f) => s + recorded[f]!, 0) / known.reduce((s, f) => s + size(f), 0) : 1;
  return new Map(chosen.map((f) => [f, recorded[f] ?? size(f) * perByte]));
}

/** Longest first, each to the shard with the least so far; the browser files as one item. */
function shareOut(chosen: string[], count: number): string[][] {
  const seconds = expectedSeconds(chosen);
  const browser = chosen.filter((f) => BROWSER.test(f));
  const items = [...chosen.filter((f) => !BROWSER.test(f)).map((f) => ({ files: [f], seconds: seconds.get(f)! }))];
  if (browser.length > 0) items.push({ files: browser, seconds: browser.reduce((sum, f) => sum + seconds.get(f)!, 0) });
  const shards = Array.from({ length: Math.min(count, items.length) }, () => ({ files: [] as string[], total: 0 }));
  for (const item of items.sort((a, b) => b.seconds - a.seconds)) {
    const lightest = shards.reduce((min, s) => (s.total < min.total ? s : min));
    lightest.files.push(...item.files);
    lightest.total += item.seconds;
  }
  return shards.map((s) => s.files.sort());
}

/**
 * Runs the shards at once. With several, each one's output is printed whole when it ends, so that
 * files never interleave; a single shard prints as it goes.
 */
async function runShards(chosen: string[], count: number, running: Set<ChildProcess>): Promise<boolean> {
  if (chosen.length === 0) return true;
  const shards = shareOut(chosen, count);
  const results = await Promise.all(
    shards.map(
      (shard, i) =>
        new Promise<{ ok: boolean; durations: string }>((resolve, reject) => {
          const durations = join(tmpdir(), `sigsvc-test-durations-${process.pid}-${i}.json`);
          const streamed = shards.length === 1;
          const child = spawn(process.execPath, [...testArgs(durations), ...shard], {
            cwd: ROOT,
            env: { ...process.env, SIGSVC_TEST_SHARD: '1' },
            stdio: ['ignore', streamed ? 'inherit' : 'pipe', streamed ? 'inherit' : 'pipe'],
          });
          const output: Buffer[] = [];
          child.stdout?.on('data', (d: Buffer) => output.push(d));
          child.stderr?.on('data', (d: Buffer) => output.push(d));
          running.add(child);
          child.on('error', reject);
          child.on('close', (code) => {
            running.delete(child);
            if (!streamed) {
              process.stdout.write(`\n── shard ${i + 1} of ${shards.length}: ${shard.length} files ──\n`);
              process.stdout.write(Buffer.concat(output));
            }
            resolve({ ok: code === 0, durations });
          });
        }),
    ),
  );
  // Only a whole run says how long each file takes (a name pattern runs a part of each).
  if (userArgs.every((a) => a.startsWith('--test-reporter'))) {
    // A shard that died wrote nothing: its files keep their old figures.
    const seconds = Object.assign(readDurations(DURATIONS), ...results.map((r) => readDurations(r.durations)));
    writeFileSync(DURATIONS, JSON.stringify(seconds, null, 1));
  }
  for (const { durations } of results) rmSync(durations, { force: true });
  return results.every((r) => r.ok);
}

// First the unit tests, beside the global setup only (they include render limits on the thread's
// CPU time, which the checks' three processes beside them stretched). The global setup makes, once
// for every process of the run, the migrated snapshot the embedded test servers start from; on
// PostgreSQL, the migrated database and the template each process's database is cloned from.
const setup = globalSetup();
const units = await runUnits(unitFiles);
await setup;
// Then the shards, and the checks beside them: before any test, the checks' ~7 s (the service's
// type check is one thread for most of them) left a core partly idle. A failed check stops the
// shards: the run ends there.
const running = new Set<ChildProcess>();
const checking = runChecks().then((passed) => {
  if (!passed) for (const child of running) child.kill('SIGTERM');
  return passed;
});
const shared = await runShards(
  files.filter((f) => !alone(f)),
  SHARDS,
  running,
);
if (!(await checking)) {
  if (ON_POSTGRES) await dropFileDatabases(process.env.DATABASE_URL!);
  process.exit(1);
}
const oneByOne = await runShards(files.filter(alone), 1, running);
if (ON_POSTGRES) await dropFileDatabases(process.env.DATABASE_URL!);
process.exit(units && shared && oneByOne ? 0 : 1);
