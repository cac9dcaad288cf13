// One migrated embedded database for the whole run, which every embedded test server starts
// from: creating an embedded database (initdb) takes 3.5–4.8 s here, loading this snapshot under
// half a second. It is made once (by the global setup, else by the first test process that needs it)
// and kept as a file in the temp directory, named by a hash of everything that shapes it, so a
// changed migration or PGlite version makes a new one (old ones are left to the temp directory's
// cleaning: other checkouts on the machine may still use them).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';
import { PGliteDialect } from '../../src/store/pglite-dialect.ts';
import { migrate, migrationFiles } from '../../src/store/migrate.ts';
import type { DataDirSnapshot } from '../../src/store/seeded-fs.ts';

const DIR = join(tmpdir(), 'sigsvc-test-snapshots');

function snapshotPaths(): { empty: string; migrated: string } {
  const hash = createHash('sha256');
  const pglite = readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8');
  hash.update(JSON.parse(pglite).version);
  hash.update('\0without template databases');
  for (const f of migrationFiles()) hash.update(`\0${f.version}\0${f.script}`);
  const key = hash.digest('hex').slice(0, 16);
  return { empty: join(DIR, `empty-${key}.tar`), migrated: join(DIR, `migrated-${key}.tar`) };
}

/** `make`'s promise, shared by every call of the process until it fails (the next call tries again). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
}

/** The two tarballs, read (or made) once per process. */
const tarballs = once(load);

/** The two tarballs' files, parsed once per process: every in-memory database of the process starts from them. */
const snapshots = once(async () => {
  const { empty, migrated } = await tarballs();
  return { empty: readTarball(empty), migrated: readTarball(migrated) };
});

/** The migrated empty database's files (for `openDatabase`'s `snapshot`). */
export async function migratedSnapshot(): Promise<DataDirSnapshot> {
  return (await snapshots()).migrated;
}

/** A new database before any migration (for the tests of the migrations themselves). */
export async function emptySnapshot(): Promise<DataDirSnapshot> {
  return (await snapshots()).empty;
}

/**
 * The files of a PGlite `dumpDataDir('none')` tarball. Written by hand: PGlite's own reader costs
 * ~0.3 s of CPU a database (src/store/seeded-fs.ts), and this reads only what PGlite writes, a
 * ustar archive of directories and regular files, each name at most 99 characters (tinytar's
 * writer cuts longer ones, which a PostgreSQL data directory does not have); any other entry type
 * fails here rather than making a wrong database.
 */
export function readTarball(tar: Uint8Array): DataDirSnapshot {
  const bytes = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  const entries: { path: string; data: Uint8Array | null }[] = [];
  const field = (header: Buffer, start: number, length: number) => {
    const end = header.indexOf(0, start);
    return header.toString('latin1', start, end === -1 || end > start + length ? start + length : end);
  };
  for (let at = 0; at + 512 <= bytes.length; ) {
    const header = bytes.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const path = field(header, 0, 100);
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    if (!path.startsWith('/') || !Number.isSafeInteger(size) || at + 512 + size > bytes.length) throw new Error(`snapshot: a bad tar header at byte ${at}`);
    at += 512;
    if (type === '5') entries.push({ path: path.replace(/\/$/, ''), data: null });
    // A plain Uint8Array, not a Buffer: PGlite's file system copies a file's bytes with slice(),
    // which on a Buffer is a view, so the databases would write into the snapshot and each other.
    else if (type === '0' || type === '\0') entries.push({ path, data: new Uint8Array(bytes.buffer, bytes.byteOffset + at, size) });
    else throw new Error(`snapshot: ${path} is of tar type ${JSON.stringify(type)}, neither a file nor a directory`);
    at += Math.ceil(size / 512) * 512;
  }
  return { entries };
}

async function load(): Promise<{ empty: Buffer; migrated: Buffer }> {
  const paths = snapshotPaths();
  try {
    return { empty: readFileSync(paths.empty), migrated: readFileSync(paths.migrated) };
  } catch {
    // Not made yet.
  }
  const client = await PGlite.create();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  try {
    // template0 and template1 are half the data directory's files, and loading a snapshot costs
    // by the file (~0.3 s of CPU a server); the service never creates a database, so they go.
    for (const name of ['template0', 'template1']) {
      await client.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
      await client.exec(`DROP DATABASE ${name}`);
    }
    const dump = async () => Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
    const empty = await dump();
    await migrate({ kind: 'embedded', unbounded: (work) => work(db) });
    const migrated = await dump();
    // Written under private names and renamed, the migrated one last (it is what marks the pair
    // as made): test processes racing to make them never read half a file.
    mkdirSync(DIR, { recursive: true });
    for (const [path, tarball] of [
      [paths.empty, empty],
      [paths.migrated, migrated],
    ] as const) {
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, tarball);
      renameSync(partial, path);
    }
    return { empty, migrated };
  } finally {
    await db.destroy();
    if (!client.closed) await client.close();
  }
}

/**
 * A new data directory (for DATA_DIR) holding the migrated snapshot, or with `migrated: false` a
 * new database no migration has touched: for tests of what a file store does (the CLI, restarts,
 * a first start). A copy of a data directory made once from the snapshot and kept beside it: a
 * file copy, where loading the tarball into a new database cost ~1 s of CPU each time.
 */
export async function seededDataDir(prefix = 'sigsvc-test-', options: { migrated?: boolean } = {}): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const source = await snapshotDataDir(options.migrated === false ? 'empty' : 'migrated');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(source, join(dir, 'pg'), { recursive: true });
  return { dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

const dataDirs = { empty: once(() => makeDataDir('empty')), migrated: once(() => makeDataDir('migrated')) };

/** The snapshot's data directory on disk (`<tarball>.d`), made once per process at most (made by the global setup, else by the first process to need it). */
export function snapshotDataDir(which: 'empty' | 'migrated'): Promise<string> {
  return dataDirs[which]();
}

async function makeDataDir(which: 'empty' | 'migrated'): Promise<string> {
  const path = `${snapshotPaths()[which]}.d`;
  const whole = () => existsSync(join(path, 'PG_VERSION'));
  if (whole()) return path;
  const { entries } = (await snapshots())[which];
  mkdirSync(DIR, { recursive: true });
  // Written under a private name and renamed: a process racing to make it never copies half of one.
  const partial = mkdtempSync(`${path}.partial-`);
  try {
    const made = join(partial, 'pg');
    for (const { path: entry, data } of entries) {
      if (data === null) mkdirSync(join(made, entry), { recursive: true, mode: 0o700 });
      else writeFileSync(join(made, entry), data, { mode: 0o600 });
    }
    try {
      renameSync(made, path);
    } catch (err) {
      // Another process made it first (its whole one counts); else what is there is not a whole
      // data directory (removed in part by a temp cleaner, say), replaced once.
      if (!whole()) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
        rmSync(path, { recursive: true, force: true });
        try {
          renameSync(made, path);
        } catch (again) {
          if (!whole()) throw again;
        }
      }
    }
    return path;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
