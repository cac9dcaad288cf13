// `npm run bench:pglite-thread [-- --jobs N --reads N --rounds N]`: what the embedded database
// would cost the service's main thread if it ran in a worker thread instead (issue #32: the
// embedded database's statements run on the main thread, between requests). Not the service's
// code path: a measurement to decide on one.
//
// Both sides run the same work through the service's own Kysely dialect (src/store/pglite-dialect.ts)
// and repositories, on a new in-memory database migrated as the service migrates it:
// - `main`: PGlite on the main thread, as in the service;
// - `worker`: PGlite in a worker thread (same options, src/store/db.ts `embeddedOptions`), the
//   dialect given a client whose `query` and `exec` post the statement to it and await its answer.
// The work: jobs through their whole life in the real repository (test/helpers/job-churn.ts, ~2
// statements a job), then point reads by primary key. Reported per side: wall time, the main
// thread's CPU and the database thread's CPU (process.threadCpuUsage), per job and per read.
// The sides alternate for `--rounds` rounds. Hand-written: a measurement, so the worker protocol
// here is the least that runs these statements (no LISTEN, no errors' fields beyond the message).
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { embeddedOptions } from '../src/store/db.ts';
import { PGliteDialect } from '../src/store/pglite-dialect.ts';
import { migrate } from '../src/store/migrate.ts';
import type { DB } from '../src/store/schema.ts';
import { churnJobs } from '../test/helpers/job-churn.ts';

// PGlite at V8's baseline tier, as in the service (src/node-flags.json): set before it compiles.
// V8's flags are the process's, so the worker's isolate runs with them too.
const nodeFlags = JSON.parse(readFileSync(new URL('../src/node-flags.json', import.meta.url), 'utf8')) as string[];
for (const flag of nodeFlags.filter((f) => f.startsWith('--liftoff'))) setFlagsFromString(flag);

type Request = { id: number; op: 'query' | 'exec' | 'cpu'; sql?: string; params?: unknown[] };
type Reply = { id: number; result?: unknown; error?: string };

async function newClient(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create(undefined, embeddedOptions());
}

/** The worker: one PGlite, one statement at a time, in the order they arrive. */
async function serveInWorker(): Promise<void> {
  const port = parentPort!;
  const client = await newClient();
  let tail = Promise.resolve();
  port.on('message', (req: Request) => {
    tail = tail.then(async () => {
      let reply: Reply;
      try {
        if (req.op === 'cpu') reply = { id: req.id, result: process.threadCpuUsage() };
        else if (req.op === 'exec') reply = { id: req.id, result: await client.exec(req.sql!) };
        else reply = { id: req.id, result: await client.query(req.sql!, req.params) };
      } catch (err) {
        reply = { id: req.id, error: (err as Error).message };
      }
      port.postMessage(reply);
    });
  });
  port.postMessage({ id: 0, result: 'ready' });
}

/** A client of the worker's PGlite with the two methods the dialect calls. */
async function workerClient(): Promise<{ client: PGlite; cpu: () => Promise<NodeJS.CpuUsage> }> {
  const worker = new Worker(new URL(import.meta.url));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  await new Promise<void>((ready, failed) => {
    worker.once('error', failed);
    worker.once('message', () => ready());
  });
  worker.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) p?.reject(new Error(reply.error));
    else p?.resolve(reply.result);
  });
  const call = (req: Omit<Request, 'id'>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id });
    });
  const client = {
    query: (text: string, params?: unknown[]) => call({ op: 'query', sql: text, params }),
    exec: (text: string) => call({ op: 'exec', sql: text }),
    close: async () => void (await worker.terminate()),
  } as unknown as PGlite;
  return { client, cpu: () => call({ op: 'cpu' }) as Promise<NodeJS.CpuUsage> };
}

interface Side {
  side: 'main' | 'worker';
  wallMs: number;
  mainCpuUsPerJob: number;
  dbCpuUsPerJob: number;
  mainCpuUsPerRead: number;
  dbCpuUsPerRead: number;
}

const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;

async function measure(side: 'main' | 'worker', jobs: number, reads: number): Promise<Side> {
  const remote = side === 'worker' ? await workerClient() : undefined;
  const client = remote?.client ?? (await newClient());
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  await migrate({ kind: 'embedded', unbounded: (work) => work(db) });
  // The database thread's CPU: the worker's own, or (on the main side) the main thread's work in it.
  const dbCpu = async () => (remote ? cpuUs(await remote.cpu()) : 0);

  let mainBefore = cpuUs(process.threadCpuUsage());
  let dbBefore = await dbCpu();
  const started = performance.now();
  await churnJobs(db, jobs, ['bench.a', 'bench.b']);
  const mainJobs = cpuUs(process.threadCpuUsage()) - mainBefore;
  const dbJobs = (await dbCpu()) - dbBefore;

  const ids = (await db.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version);
  mainBefore = cpuUs(process.threadCpuUsage());
  dbBefore = await dbCpu();
  for (let i = 0; i < reads; i++) await sql`select version, applied_at from schema_migrations where version = ${ids[i % ids.length]}`.execute(db);
  const mainReads = cpuUs(process.threadCpuUsage()) - mainBefore;
  const dbReads = (await dbCpu()) - dbBefore;
  const wallMs = performance.now() - started;

  // Closes the database (the worker's too: its client's close ends the thread).
  await db.destroy();
  return {
    side,
    wallMs: Math.round(wallMs),
    // On the main side the statements run on the main thread: all of its CPU is the database's too.
    mainCpuUsPerJob: mainJobs / jobs,
    dbCpuUsPerJob: remote ? dbJobs / jobs : mainJobs / jobs,
    mainCpuUsPerRead: mainReads / reads,
    dbCpuUsPerRead: remote ? dbReads / reads : mainReads / reads,
  };
}

if (!isMainThread) {
  await serveInWorker();
} else {
  const { values } = parseArgs({
    options: { jobs: { type: 'string', default: '5000' }, reads: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '3' } },
  });
  const jobs = Number(values.jobs);
  const reads = Number(values.reads);
  const rows: Side[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const side of round % 2 === 0 ? (['main', 'worker'] as const) : (['worker', 'main'] as const)) {
      const r = await measure(side, jobs, reads);
      rows.push(r);
      console.error(`… round ${round + 1}, ${side}: ${r.wallMs} ms`);
    }
  }
  const f = (n: number) => n.toFixed(1).padStart(9);
  console.log(`${jobs} jobs through their life, then ${reads} point reads; CPU µs (main thread / database thread)`);
  console.log('| side   | wall ms | job: main | job: db | read: main | read: db |');
  console.log('|--------|---------|-----------|---------|------------|----------|');
  for (const r of rows) {
    console.log(
      `| ${r.side.padEnd(6)} | ${String(r.wallMs).padStart(7)} | ${f(r.mainCpuUsPerJob)} | ${f(r.dbCpuUsPerJob)} | ${f(r.mainCpuUsPerRead)} | ${f(r.dbCpuUsPerRead)} |`,
    );
  }
}
