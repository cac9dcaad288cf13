// `npm test` after the type check: the unit tests in one process, every other test file under
// Node's test runner, three at a time, then the files that must run alone. Test processes run with
// --liftoff-only, as the service does (it saves ~0.5 s of CPU per embedded database started: V8
// no longer recompiles PostgreSQL's WebAssembly in the background), but not with the service's
// heap limits (src/runtime.ts): those trade CPU for a smaller RSS, and cost the suite ~25 s of CPU
// in collections. The service started as a process (test/helpers/process.ts) has all its flags.
// Arguments are passed on to the runner (e.g. `npm test -- --test-reporter=spec`).
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '../src/runtime.ts';
import { dropFileDatabases } from './helpers/file-database.ts';

const ROOT = new URL('../', import.meta.url);
const HEAP_FLAGS = /^--(max-semi-space-size|heap-growing-percent)=/;
// Node's compile cache (its code cache and the type-stripped sources, kept by content hash) for
// every process of the run: a test process imports the whole service, and the cache takes ~0.2 s
// of CPU off each of the ~90 the suite starts.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'sigsvc-node-compile-cache');
// It measures what two instances admit in a second: other files running beside it would starve it.
// Browser tests (`*.browser.test.ts`: a Chromium each, heavy on a small machine) run one at a time too.
const BROWSER = /\.browser\.test\.ts$/;
const ALONE_FILES = ['test/multi-instance.test.ts'];
const files = globSync('test/**/*.test.ts', { cwd: ROOT }).sort();
// The unit tests beside the code (src/**/*.test.ts) test pure modules: they share one process,
// which saves a process start (~0.5 s of CPU) per file.
const unitFiles = globSync('src/**/*.test.ts', { cwd: ROOT }).sort();

function run(concurrency: number, chosen: string[], isolation: 'process' | 'none' = 'process'): boolean {
  // The unit tests (isolation none) need no database.
  const stores =
    isolation === 'process'
      ? [
          // Makes what the files share once: the migrated snapshot, PostgreSQL's migrations.
          '--test-global-setup=test/helpers/global-setup.ts',
          // On PostgreSQL, each file's process gets a database of its own (a clone of a migrated template).
          '--import=./test/helpers/file-database.ts',
        ]
      : [];
  const args = [
    ...SERVICE_NODE_FLAGS.filter((flag) => !HEAP_FLAGS.test(flag)),
    '--test',
    `--test-isolation=${isolation}`,
    ...stores,
    `--test-concurrency=${concurrency}`,
    '--test-timeout=120000',
    '--test-force-exit',
    ...process.argv.slice(2),
    ...chosen,
  ];
  return spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

const alone = (f: string) => ALONE_FILES.includes(f) || BROWSER.test(f);
const units = run(1, unitFiles, 'none');
const together = run(3, files.filter((f) => !alone(f)));
const oneByOne = run(1, files.filter(alone));
if (process.env.DATABASE_URL?.startsWith('postgres')) await dropFileDatabases(process.env.DATABASE_URL);
process.exit(units && together && oneByOne ? 0 : 1);
