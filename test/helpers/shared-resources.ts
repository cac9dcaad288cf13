// What the test servers of one process share, and how the files of a shard (test/run.ts: one
// process runs its files one after the other) stay out of each other's way.
//
// - One embedded database: opening one from the snapshot costs ~0.5 s of CPU, and the suite starts
//   over a hundred servers. A shard keeps it to its end (the runner's --test-force-exit ends the
//   process). Elsewhere (a file run by hand, tools/web-screenshots.ts) it is closed with its last
//   server, as an open one keeps a process up (PGlite arms a timer for PostgreSQL's own).
// - One render pool per thread count: its threads cost ~1 s of CPU each to load. Idle threads keep
//   no process up, so it is never closed.
// - When a server is started by another test file than the last one, the shared database (the
//   embedded one, or on PostgreSQL the shard's, test/helpers/file-database.ts) is emptied first:
//   each file starts on an empty database, as it did in a process of its own, and never meets the
//   jobs, integrations or rows the one before left.
// - A server still open when another file starts one is an error: the file that opened it must
//   close it in its own hooks, or its job worker would run the next file's jobs.
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { createRenderPool, type RenderPool } from '../../src/render/pool.ts';
import { migratedSnapshot } from './snapshot.ts';

// Every table but the migrations' own record (no migration seeds another table's rows) and the
// identity provider's signing keys, which a deployment keeps too (each file's first server would
// make an RSA key, ~50 ms of CPU).
const EMPTY_EVERY_TABLE = `DO $$
  DECLARE tables text;
  BEGIN
    SELECT string_agg(format('%I', tablename), ', ') INTO tables FROM pg_tables
      WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'idp_keys');
    EXECUTE 'TRUNCATE ' || tables || ' RESTART IDENTITY CASCADE';
  END $$`;

let embedded: Promise<Database> | undefined;
let embeddedUsers = 0;
/** This process is a shard of test/run.ts (its files run one after the other). */
export const IN_SHARD = process.env.SIGSVC_TEST_SHARD === '1';
const pools = new Map<number, RenderPool>();
const openServers = new Map<object, string>();
// The test file that last started a server on each shared store (the embedded one, a PostgreSQL URL).
const lastFileOf = new Map<string, string>();

/** The test file in this call's stack (the first, for a helper called by a helper). */
export function callingTestFile(): string {
  return /[\w./:-]+\.test\.ts/.exec(new Error().stack ?? '')?.[0] ?? 'an unknown file';
}

function openEmbedded(): Promise<Database> {
  embedded ??= migratedSnapshot()
    .then((snapshot) => openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot }))
    .catch((err: unknown) => {
      embedded = undefined;
      throw err;
    });
  return embedded;
}

async function emptyPostgres(url: string): Promise<void> {
  // Bounded: a lock held by something a test left behind fails the test, rather than holding the shard.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, statement_timeout: 30_000 });
  await client.connect();
  try {
    // PostgreSQL aborts one side of a deadlock and expects it to be retried: a CI run's TRUNCATE
    // met a backend on the shard's database still finishing work after the last file had closed
    // its servers, each waiting for a lock the other held (40P01). Other errors fail at once.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(EMPTY_EVERY_TABLE);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== '40P01' || attempt === 3) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  } finally {
    await client.end();
  }
}

/** Empties the store a server of `file` is about to use when another file used it last. */
async function takeOver(store: string, file: string, empty: () => Promise<void>): Promise<void> {
  const last = lastFileOf.get(store);
  lastFileOf.set(store, file);
  if (last !== undefined && last !== file) await empty();
}

export interface Claim {
  /** For createDeps' `shared`: the embedded database when the server asked for it, and the pool. */
  shared: { database?: Database; renderPool: RenderPool };
  /** The server closed. */
  release: () => Promise<void>;
}

/**
 * Claims what a server of `file` shares: `embedded` asks for the process's embedded database;
 * `postgresUrl` names the shard's PostgreSQL database when the server uses it.
 */
export async function claimShared(file: string, options: { embedded: boolean; postgresUrl: string | undefined; threads: number }): Promise<Claim> {
  for (const other of new Set(openServers.values())) {
    if (other !== file) throw new Error(`a server that ${other} started is still open: that file must close its servers (in an after hook)`);
  }
  const { postgresUrl } = options;
  if (postgresUrl) await takeOver(postgresUrl, file, () => emptyPostgres(postgresUrl));
  let database: Database | undefined;
  if (options.embedded) {
    embeddedUsers++;
    try {
      database = await openEmbedded();
      const db = database.db;
      await takeOver('embedded', file, async () => void (await sql.raw(EMPTY_EVERY_TABLE).execute(db)));
    } catch (err) {
      embeddedUsers--;
      throw err;
    }
  }
  let renderPool = pools.get(options.threads);
  if (!renderPool) {
    renderPool = createRenderPool({ threads: options.threads });
    pools.set(options.threads, renderPool);
  }
  const token = {};
  openServers.set(token, file);
  return {
    shared: { database, renderPool },
    async release() {
      if (!openServers.delete(token) || !options.embedded || --embeddedUsers > 0 || IN_SHARD) return;
      const closing = embedded;
      embedded = undefined;
      await (await closing)?.close();
    },
  };
}
