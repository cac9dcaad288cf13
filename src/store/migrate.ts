// Applies the plain SQL files of ./migrations in name order, each once, each in its own
// transaction. On a PostgreSQL server an advisory lock makes concurrent starts (several instances,
// or `sigsvc migrate` beside a running service) take turns instead of racing.
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
// An arbitrary constant naming "the migration lock" of this application.
const LOCK_ID = 727_001;

export function migrationFiles(): { version: string; script: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), script: readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8') }));
}

export async function migrate(database: Pick<Database, 'kind' | 'unbounded'>): Promise<{ applied: string[]; current: string | null }> {
  const files = migrationFiles();
  const applied: string[] = [];
  await database.unbounded((db) =>
    db.connection().execute(async (conn) => {
      if (database.kind === 'postgres') await sql`select pg_advisory_lock(${LOCK_ID})`.execute(conn);
      try {
        await sql`create table if not exists schema_migrations (
        version text primary key, applied_at timestamptz not null default now())`.execute(conn);
        const done = new Set((await conn.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version));
        for (const file of files) {
          if (done.has(file.version)) continue;
          await conn.transaction().execute(async (tx) => {
            await sql.raw(file.script).execute(tx);
            await tx.insertInto('schema_migrations').values({ version: file.version }).execute();
          });
          applied.push(file.version);
        }
      } finally {
        if (database.kind === 'postgres') await sql`select pg_advisory_unlock(${LOCK_ID})`.execute(conn);
      }
    }),
  );
  return { applied, current: files.at(-1)?.version ?? null };
}
