// One migrated embedded database for the whole run, which every embedded test server starts
// from: creating an embedded database (initdb) takes 3.5–4.8 s here, loading this snapshot under
// half a second. It is made once (by the global setup, else by the first test process that needs it)
// and kept as a file in the temp directory, named by a hash of everything that shapes it, so a
// changed migration or PGlite version makes a new one (old ones are left to the temp directory's
// cleaning: other checkouts on the machine may still use them).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';
import { PGliteDialect } from '../../src/store/pglite-dialect.ts';
import { migrate, migrationFiles } from '../../src/store/migrate.ts';

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

let cached: Promise<{ empty: Blob; migrated: Blob }> | undefined;

function snapshots(): Promise<{ empty: Blob; migrated: Blob }> {
  cached ??= load().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** The migrated empty database as a PGlite data-directory tarball (for `loadDataDir`). */
export async function migratedSnapshot(): Promise<Blob> {
  return (await snapshots()).migrated;
}

/** A new database before any migration (for the tests of the migrations themselves). */
export async function emptySnapshot(): Promise<Blob> {
  return (await snapshots()).empty;
}

async function load(): Promise<{ empty: Blob; migrated: Blob }> {
  const paths = snapshotPaths();
  try {
    return { empty: new Blob([readFileSync(paths.empty)]), migrated: new Blob([readFileSync(paths.migrated)]) };
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
    const dump = async () => new Blob([await (await client.dumpDataDir('none')).arrayBuffer()]);
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
      writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
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
 * a first start). Loading it takes about half as long as creating one.
 */
export async function seededDataDir(prefix = 'sigsvc-test-', options: { migrated?: boolean } = {}): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const snapshot = options.migrated === false ? await emptySnapshot() : await migratedSnapshot();
  const client = await PGlite.create(join(dir, 'pg'), { loadDataDir: snapshot });
  await client.close();
  return { dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
