// `npm run bench:upkeep [-- --jobs N --every N]`: what the embedded database's upkeep
// (src/upkeep/upkeep.ts) keeps from growing. Jobs go through the queue's whole life in the real
// repository (test/helpers/job-churn.ts), 50 at a time, on a new embedded database;
// every `--every` jobs an upkeep round runs (in the service, one a minute), or none with
// `--every 0`. At each 10,000 jobs: the CPU of an idle queue's poll (a claim that finds nothing,
// as each queue makes every second), the `jobs` table's size, and the longest statement of the
// rounds so far (the event loop waits for one statement; a round yields between tables).
// Run it with and without rounds to compare (BENCHMARKS.md, "The embedded database's upkeep").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { jobsRepo } from '../src/store/repositories/jobs.ts';
import { createUpkeep } from '../src/upkeep/upkeep.ts';
import { createLogger } from '../src/log.ts';
import { churnJobs } from '../test/helpers/job-churn.ts';

// PGlite at V8's baseline tier, as in the service (src/node-flags.json): set before it compiles.
const nodeFlags = JSON.parse(readFileSync(new URL('../src/node-flags.json', import.meta.url), 'utf8')) as string[];
for (const flag of nodeFlags.filter((f) => f.startsWith('--liftoff'))) setFlagsFromString(flag);

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '50000' }, every: { type: 'string', default: '1000' } } });
const total = Number(values.jobs);
const every = Number(values.every);
const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-upkeep-'));
const database = await openDatabase({ databaseUrl: undefined, dataDir });
const { db } = database;
const upkeep = createUpkeep({ db, logger: createLogger('warn', false), intervalMs: 60_000 });
const kinds = ['mail', 'google-push', 'directory-sync', 'webhook-drain'];

/** CPU ms of an idle claim, the mean of 20. */
async function idleClaimMs(): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < 20; i++) await jobsRepo.claim(db, { kinds, limit: 4, leaseMs: 60_000 });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 20 / 1000;
}

async function sizeKb(): Promise<{ heap: number; indexes: number }> {
  const r = await sql<{ heap: string; indexes: string }>`select pg_relation_size('jobs') as heap, pg_indexes_size('jobs') as indexes`.execute(db);
  return { heap: Math.round(Number(r.rows[0]!.heap) / 1024), indexes: Math.round(Number(r.rows[0]!.indexes) / 1024) };
}

try {
  await migrate(database);
  console.log(`jobs through the queue on the embedded database, an upkeep round ${every ? `every ${every} jobs` : 'never'}`);
  console.log('| jobs | idle claim, CPU ms | jobs heap KB | jobs indexes KB | longest upkeep statement ms |');
  console.log('|---|---|---|---|---|');
  let longest = 0;
  const row = async (done: number) => {
    const size = await sizeKb();
    console.log(`| ${done} | ${(await idleClaimMs()).toFixed(2)} | ${size.heap} | ${size.indexes} | ${longest.toFixed(1)} |`);
  };
  await row(0);
  await churnJobs(db, total, kinds, async (done) => {
    if (every && done % every === 0) for (const t of await upkeep.round()) longest = Math.max(longest, t.ms);
    if (done % 10_000 === 0) await row(done);
  });
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
