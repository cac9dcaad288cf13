// The embedded database's upkeep (src/upkeep/upkeep.ts): PGlite has no autovacuum, so the service
// vacuums and analyzes its tables itself. A PostgreSQL server vacuums its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser } from './helpers/fixtures.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { waitFor } from './helpers/wait.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { migratedSnapshot } from './helpers/snapshot.ts';
import { churnJobs } from './helpers/job-churn.ts';
import { createUpkeep } from '../src/upkeep/upkeep.ts';
import { createLogger } from '../src/log.ts';
import type { Db } from '../src/store/database.ts';

interface TableStats {
  table: string;
  vacuums: number;
  analyzes: number;
  dead: number;
}

async function tableStats(db: Db): Promise<Map<string, TableStats>> {
  const r = await sql<TableStats>`
    select relname as "table", vacuum_count::int as vacuums, analyze_count::int as analyzes, n_dead_tup::int as dead
    from pg_stat_user_tables where schemaname = current_schema()`.execute(db);
  return new Map(r.rows.map((t) => [t.table, t]));
}

const skip = ON_POSTGRES && 'a PostgreSQL server vacuums its own tables (autovacuum)';

describe('the service vacuums and analyzes the embedded database', { skip }, () => {
  let server: TestServer;
  before(async () => {
    // A database of its own, so that its counters are this test's.
    server = await startServer({ DATABASE_URL: 'memory://', EMBEDDED_VACUUM_INTERVAL_MS: '150' });
  });
  after(() => server?.close());

  test('every table once after the start, then the tables the API changed past the thresholds, and only those', async () => {
    const { db } = server.deps.database;
    const first = await waitFor(async () => {
      const stats = await tableStats(db);
      return [...stats.values()].every((t) => t.vacuums >= 1) && stats;
    }, 'the first round to vacuum every table');
    const tables = await sql<{ n: number }>`select count(*)::int as n from pg_tables where schemaname = current_schema()`.execute(db);
    assert.equal(first.size, tables.rows[0]!.n);
    assert.ok(first.size > 30, `${first.size} tables`);
    // The catalogs too (after the app's tables): they hold the database's oldest unfrozen
    // transaction like any table.
    await waitFor(async () => {
      const catalog = await sql<{ vacuums: number }>`
        select vacuum_count::int as vacuums from pg_stat_all_tables where schemaname = 'pg_catalog' and relname = 'pg_statistic'`.execute(db);
      return catalog.rows[0]!.vacuums >= 1;
    }, 'the first round to vacuum the catalogs');

    // 60 users: 60 rows changed in a table of ~1 (the analyze threshold is 50 + 10 %).
    const org = await createOrg(server, { seats: 100 });
    for (let i = 0; i < 60; i++) await createUser(server, org, { email: `upkeep${i}@example.com` });
    const users = await waitFor(async () => {
      const t = (await tableStats(db)).get('users');
      return t && t.analyzes > (first.get('users')?.analyzes ?? 0) && t;
    }, 'the users table to be analyzed again');
    assert.ok(users.analyzes >= 1);
    // A table nothing wrote to is left alone after the first round.
    const untouched = (await tableStats(db)).get('scim_groups');
    assert.equal(untouched?.vacuums, first.get('scim_groups')?.vacuums);
    assert.equal(untouched?.analyzes, first.get('scim_groups')?.analyzes);
  });
});

describe('the upkeep keeps a table with churn from growing', { skip }, () => {
  let database: Database;
  before(async () => {
    database = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot: await migratedSnapshot() });
  });
  after(() => database?.close());

  const heapBytes = async (db: Db) => Number((await sql<{ size: string }>`select pg_relation_size('jobs') as size`.execute(db)).rows[0]!.size);

  test('without a round the emptied jobs table keeps every old row; after one its space is used again', async () => {
    const { db } = database;
    const upkeep = createUpkeep({ db, logger: createLogger('silent', false), intervalMs: 60_000 });
    await upkeep.round(); // the first round: every table
    await churnJobs(db, 1000, ['mail']);
    const grown = await heapBytes(db);
    assert.ok(grown >= 64 * 1024, `1,000 jobs leave ${grown} bytes behind in an empty table`);
    // The statistics reach the counters at most once a second (PostgreSQL's own pace).
    const ran = await waitFor(async () => {
      const done = await upkeep.round();
      return done.some((t) => t.table === 'jobs' && t.vacuum) && done;
    }, 'a round to vacuum the jobs table');
    assert.ok(!ran.some((t) => t.table === 'scim_groups'), 'a table nothing wrote to is not in the round');
    await churnJobs(db, 1000, ['mail']);
    const after = await heapBytes(db);
    // Without the round the table doubles (the second 1,000 jobs' rows go after the first's); with
    // it the emptied table is truncated or its pages are used again.
    assert.ok(after < grown * 1.5, `the second 1,000 jobs reused the space: ${after} bytes, ${grown} before`);
  });
});

describe('no upkeep where it must not run', () => {
  test('EMBEDDED_VACUUM_INTERVAL_MS=0: no table is ever vacuumed', { skip }, async () => {
    const server = await startServer({ DATABASE_URL: 'memory://', EMBEDDED_VACUUM_INTERVAL_MS: '0' });
    try {
      await createOrg(server);
      // Three rounds' time at the interval the first test uses.
      await new Promise((r) => setTimeout(r, 500));
      const stats = await tableStats(server.deps.database.db);
      assert.deepEqual(
        [...stats.values()].filter((t) => t.vacuums > 0 || t.analyzes > 0).map((t) => t.table),
        [],
      );
    } finally {
      await server.close();
    }
  });

  test('a PostgreSQL server vacuums its own tables: the service starts no round there', async () => {
    // The suite's store: embedded in .ci/run's first pass, PostgreSQL in its second.
    const server = await startServer({ EMBEDDED_VACUUM_INTERVAL_MS: '150' });
    try {
      const upkeep = server.deps.modules.find((m) => m.name === 'upkeep');
      assert.equal(upkeep?.timers?.length, ON_POSTGRES ? 0 : 1);
    } finally {
      await server.close();
    }
  });
});
