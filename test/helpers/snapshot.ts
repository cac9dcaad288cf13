// One migrated embedded database for the whole run, which every embedded test server starts
// from: creating an embedded database (initdb) takes 3.5–4.8 s here, loading this snapshot under
// a second. It is made once (by the global setup, else by the first test process that needs it)
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

function snapshotPath(): string {
  const hash = createHash('sha256');
  const pglite = readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8');
  hash.update(JSON.parse(pglite).version);
  for (const f of migrationFiles()) hash.update(`\0${f.version}\0${f.script}`);
  return join(DIR, `migrated-${hash.digest('hex').slice(0, 16)}.tar`);
}

let cached: Promise<Blob> | undefined;

/** The migrated empty database as a PGlite data-directory tarball (for `loadDataDir`). */
export function migratedSnapshot(): Promise<Blob> {
  cached ??= load().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function load(): Promise<Blob> {
  const path = snapshotPath();
  try {
    return new Blob([readFileSync(path)]);
  } catch {
    // Not made yet.
  }
  const client = await PGlite.create();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  try {
    await migrate({
      db,
      kind: 'embedded',
      description: 'test snapshot',
      execScript: async (script) => void (await client.exec(script)),
      ping: async () => {},
      close: () => db.destroy(),
    });
    const tarball = new Blob([await (await client.dumpDataDir('none')).arrayBuffer()]);
    // Written under a private name and renamed: test processes racing to make it never read half a file.
    mkdirSync(DIR, { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
    renameSync(partial, path);
    return tarball;
  } finally {
    await db.destroy();
    if (!client.closed) await client.close();
  }
}


/**
 * A new data directory (for DATA_DIR) holding the migrated snapshot: for tests of what a file
 * store does (the CLI, restarts). Loading it takes about half as long as creating one.
 */
export async function seededDataDir(prefix = 'sigsvc-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const client = await PGlite.create(join(dir, 'pg'), { loadDataDir: await migratedSnapshot() });
  await client.close();
  return { dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
