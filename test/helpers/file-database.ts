// On PostgreSQL (DATABASE_URL set, the second pass of .ci/run), each test process works in a
// database of its own, cloned from a template the global set-up migrated once: a shard of files
// (test/run.ts, SIGSVC_TEST_SHARD) or a file the runner started in a process of its own
// (NODE_TEST_CONTEXT). One shared database let any file's server claim another's queued jobs (a
// Microsoft sync, a mail) and run them against its own, different fakes; a clone costs ~0.1 s and
// isolates them. test/run.ts preloads this module (--import) in every test process; the runner's
// own process and a file run by hand without the preload keep DATABASE_URL as it is.
// test/run.ts drops them all when the run ends (the runner's global teardown is not awaited
// under --test-force-exit); a file run by hand leaves the template, which the next run's set-up
// drops with any clone an interrupted run left.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The template's and the clones' names, from the run's database name, with a marker no other
 * database's name has: the run drops every database that starts with it. One run at a time per
 * DATABASE_URL (.ci/run makes a new database per run).
 */
export function fileDatabaseNames(url: string): { template: string; clonePrefix: string } {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  return { template: `${name}__sigsvc_tpl`, clonePrefix: `${name}__sigsvc_f` };
}

/** A connection to the server's maintenance database, never to the template (a clone needs it idle). */
export function maintenanceClient(url: string): pg.Client {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return new pg.Client({ connectionString: admin.toString() });
}

/** Drops the template and every clone of this run's database (before a run, and after it in test/run.ts). */
export async function dropFileDatabases(url: string): Promise<void> {
  const { template, clonePrefix } = fileDatabaseNames(url);
  const client = maintenanceClient(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $2)', [
      template,
      clonePrefix,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function cloneForThisFile(url: string): Promise<string> {
  const { template, clonePrefix } = fileDatabaseNames(url);
  const name = `${clonePrefix}${randomBytes(5).toString('hex')}`;
  const client = maintenanceClient(url);
  await client.connect();
  try {
    // Two clones of one template at the same moment can meet its lock: try again briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        break;
      } catch (e) {
        if (attempt >= 50 || !/being accessed by other users/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await client.end();
  }
  const clone = new URL(url);
  clone.pathname = `/${name}`;
  return clone.toString();
}

const url = process.env.DATABASE_URL;
const testProcess = process.env.NODE_TEST_CONTEXT !== undefined || process.env.SIGSVC_TEST_SHARD === '1';
if (url?.startsWith('postgres') && testProcess && process.env.SIGSVC_FILE_DATABASE !== url) {
  process.env.DATABASE_URL = await cloneForThisFile(url);
  process.env.SIGSVC_FILE_DATABASE = process.env.DATABASE_URL;
}
