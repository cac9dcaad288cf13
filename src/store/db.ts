// Opens the store: embedded PostgreSQL (PGlite) by default, a PostgreSQL server when DATABASE_URL
// says so. Both speak the same SQL; the rest of the code sees only Kysely and this small interface.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';
import { channelName, type Database, type Db, type PoolStats } from './database.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { PostgresTimeouts } from './postgres.ts';
import { TimeoutError, withTimeout } from './timeout.ts';
import { DatabaseUnavailableError } from './errors.ts';
import type { PGlite as PGliteType } from '@electric-sql/pglite';
import type { DataDirSnapshot } from './seeded-fs.ts';

export type { PostgresTimeouts };

export type { Database, Db, PoolStats };

// int8 (bigint, counts, identity columns) comes back as a string from both drivers, so no value
// silently loses precision and both stores behave the same.
const INT8 = 20;

// bytea (raw webhook bodies, secrets' ciphertexts): PGlite's own serializer spells a value in hex
// through a string per byte (`Array.from(bytes).map(…).join('')`), its parser reads it back through
// a `parseInt` per byte: 322 and 355 µs for a 5 KB webhook body (a payment provider's invoice event
// is 3–8 KB), half a delivery's CPU on the embedded store (BENCHMARKS.md, "The eighth session").
// Node's Buffer does both in native code (2.6 and 8.5 µs), to the same text: PostgreSQL's hex
// format, `\x` and two digits a byte.
const BYTEA = 17;
const byteaSerializer = (value: unknown): string => {
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
};
// A copy of its own (a Uint8Array, as PGlite answers): a small Buffer is a view into a shared pool.
const byteaParser = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.slice(2), 'hex'));

// PGlite's options in the service (and in `bench/pglite-thread.ts`, which opens one in a worker).
// PostgreSQL's default 128 MB of shared buffers is most of PGlite's memory; an embedded
// single-tenant store does well with far less. Its WebAssembly memory only grows, and PostgreSQL
// touches every page of its shared memory at start, so each MB of it is resident for good: 4 MB
// of buffers (a page not in them is read back from the data directory's files, which the OS
// caches) and the slots of 5 connections (PGlite is one backend; the default 100, with WAL
// senders and background workers it never starts, size tables of locks and processes) made the
// WebAssembly memory 14 MB at start instead of 30 with 16 MB and the defaults (BENCHMARKS.md,
// "Memory").
export function embeddedOptions() {
  return {
    parsers: { [INT8]: (v: string) => v, [BYTEA]: byteaParser },
    serializers: { [BYTEA]: byteaSerializer },
    postgresqlconf: [
      'shared_buffers = 4MB',
      'max_connections = 5',
      'superuser_reserved_connections = 0',
      'max_wal_senders = 0',
      'max_replication_slots = 0',
      'max_worker_processes = 1',
      'work_mem = 4MB',
      'maintenance_work_mem = 16MB',
      // ANALYZE (the upkeep's, upkeep/upkeep.ts) holds a sample of 300 × this many whole rows. At
      // PostgreSQL's 100, on a table of wide rows (clicks: a destination and a user agent) that was
      // ~19 MB of WebAssembly memory, resident for good, and ~260 ms of the thread requests share;
      // at 20, ~4 MB and ~100 ms (BENCHMARKS.md, "Memory"). The tables' columns are keys, times and
      // flags, which 20 buckets and most-common values describe well enough.
      'default_statistics_target = 20',
    ],
  };
}

/**
 * True when opening this configuration will create an embedded database on disk (a first run:
 * PostgreSQL's initdb, then every migration), which takes from seconds to a minute.
 */
export function willCreateEmbeddedDatabase(databaseUrl: string | undefined, dataDir: string): boolean {
  if (databaseUrl) return false;
  return !existsSync(join(resolve(dataDir), 'pg', 'PG_VERSION'));
}

// In-memory databases' file directories, removed when the process exits if nothing closed them
// first (a process may end with its database open, as a test shard does).
const temporaryDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Server timeouts; defaults suit the CLI (config.ts has the service's). */
  timeouts?: PostgresTimeouts;
  /** A connection lost: one of the pool's, or the one that listens for notifications (reopened after a while). */
  onConnectionLost?: (err: Error, which: 'pool' | 'listener') => void;
  /**
   * In memory only: start from this data directory's files instead of creating one, which takes
   * seconds; the tests start every server from one migrated snapshot (seeded-fs.ts).
   */
  snapshot?: DataDirSnapshot;
}): Promise<Database> {
  const { databaseUrl, dataDir } = options;
  if (databaseUrl?.startsWith('postgres')) {
    // Loaded only with a PostgreSQL server: the embedded store never holds pg's code.
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(databaseUrl, {
      timeouts: options.timeouts ?? { statementTimeoutMs: 30_000, connectTimeoutMs: 5000 },
      onConnectionLost: options.onConnectionLost,
    });
  }
  const inMemory = databaseUrl?.startsWith('memory://') ?? false;
  let dir: string | undefined;
  let release = () => {};
  let filesDir: string;
  if (!inMemory) {
    dir = resolve(dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    release = lockDataDir(resolve(dataDir));
    filesDir = resolve(dataDir);
  } else {
    const temporary = mkdtempSync(join(tmpdir(), 'sigsvc-files-'));
    filesDir = temporary;
    temporaryDirs.add(temporary);
    release = () => {
      temporaryDirs.delete(temporary);
      rmSync(temporary, { recursive: true, force: true });
    };
  }
  // Loaded only in embedded mode: a service on a PostgreSQL server never pays for it.
  const { PGlite } = await import('@electric-sql/pglite');
  let client: PGliteType;
  try {
    // Loaded only for a snapshot: the service never starts from one.
    const fs = inMemory && options.snapshot ? new (await import('./seeded-fs.ts')).SeededMemoryFs(options.snapshot) : undefined;
    client = await PGlite.create(dir, { ...embeddedOptions(), fs });
  } catch (err) {
    release();
    throw err;
  }
  const dialect = new PGliteDialect(client);
  const db = new Kysely<DB>({ dialect });
  let closed = false;
  return {
    db,
    kind: 'embedded',
    filesDir,
    description: inMemory ? 'embedded PostgreSQL (PGlite), in memory' : `embedded PostgreSQL (PGlite) in ${dir}`,
    async execScript(script) {
      await client.exec(script);
    },
    unbounded: (work) => work(db),
    poolStats: () => dialect.stats(),
    async listen(channel, onPayload) {
      // LISTEN through Kysely's connection, which one caller holds at a time: PGlite's own listen()
      // could run it between another caller's BEGIN and ROLLBACK, which would undo it. Never
      // UNLISTEN: servers of one process that share the database (the tests) share the session.
      await sql.raw(`LISTEN ${channelName(channel)}`).execute(db);
      return client.onNotification((from, payload) => {
        if (from === channel) onPayload(payload);
      });
    },
    async ping(timeoutMs) {
      if (closed || client.closed) throw new DatabaseUnavailableError('unreachable', new Error('embedded database is closed'));
      try {
        await withTimeout(sql`select 1`.execute(db), timeoutMs);
      } catch (err) {
        throw new DatabaseUnavailableError(err instanceof TimeoutError ? 'timeout' : 'unreachable', err);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
      // Kysely closes its driver only once it has run a query: a database opened and closed unused
      // would keep PGlite, and the timer PostgreSQL arms inside it, alive (the process never ended).
      if (!client.closed) await client.close();
      release();
    },
  };
}
