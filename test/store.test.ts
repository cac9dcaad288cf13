import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { campaignStatsRepo } from '../src/store/repositories/campaign-stats.ts';
import { clicksRepo } from '../src/store/repositories/clicks.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrate, migrationFiles } from '../src/store/migrate.ts';
import { NEEDS_POSTGRES, postgresAvailable, scratchBehindProxy, scratchDatabase } from './helpers/pg.ts';
import { runCli } from './helpers/cli.ts';
import { emptySnapshot } from './helpers/snapshot.ts';
import { startServer } from './helpers/server.ts';

describe('migrations', () => {
  test('are idempotent: a second run applies nothing', async () => {
    const database = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot: await emptySnapshot() });
    try {
      const first = await migrate(database);
      assert.deepEqual(
        first.applied,
        migrationFiles().map((f) => f.version),
      );
      const second = await migrate(database);
      assert.deepEqual(second.applied, []);
    } finally {
      await database.close();
    }
  });

  // The tests' databases all start from one snapshot's files, parsed once per process
  // (src/store/seeded-fs.ts): a database writes into copies of them, never into the snapshot.
  test('a database started from a snapshot leaves the snapshot as it was for the next one', async () => {
    const snapshot = await emptySnapshot();
    const digest = () => {
      const hash = createHash('sha256');
      for (const { path, data } of snapshot.entries) hash.update(`${path}\0`).update(data ?? 'directory');
      return hash.digest('hex');
    };
    const before = digest();
    const first = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot });
    try {
      await migrate(first);
      await first.execScript('CHECKPOINT');
    } finally {
      await first.close();
    }
    assert.equal(digest(), before);
    const second = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot });
    try {
      assert.deepEqual(
        (await migrate(second)).applied,
        migrationFiles().map((f) => f.version),
        'the second database starts empty',
      );
    } finally {
      await second.close();
    }
  });

  // Two runs at once on two connections, as two processes would have (`sigsvc migrate` runs as a
  // process in cli.test.ts): the advisory lock is per connection.
  test('two migrations of one PostgreSQL database at once apply each file exactly once', async (t) => {
    if (!(await postgresAvailable())) return t.skip(NEEDS_POSTGRES);
    const scratch = await scratchDatabase();
    try {
      const env = { DATABASE_URL: scratch.url };
      const [a, b] = await Promise.all([runCli(['migrate'], env), runCli(['migrate'], env)]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const applied = [JSON.parse(a.stdout).applied, JSON.parse(b.stdout).applied].sort((x, y) => y.length - x.length);
      assert.deepEqual(
        applied[0],
        migrationFiles().map((f) => f.version),
      );
      assert.deepEqual(applied[1], []);
      const database = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
      try {
        const rows = await database.db.selectFrom('schema_migrations').select('version').execute();
        assert.equal(rows.length, migrationFiles().length);
      } finally {
        await database.close();
      }
    } finally {
      await scratch.drop();
    }
  });
});

describe('a PostgreSQL server in another time zone', () => {
  // `from` and `to` of campaign stats are UTC days (DECISIONS wave 3, "Clicks"); a date compared
  // with a timestamp is read in the session's time zone, the server's or the database's setting.
  test("a campaign's clicks are counted on their UTC day whatever the database's time zone", async (t) => {
    if (!(await postgresAvailable())) return t.skip(NEEDS_POSTGRES);
    const scratch = await scratchDatabase();
    try {
      const admin = new pg.Client({ connectionString: scratch.url });
      await admin.connect();
      await admin.query(`ALTER DATABASE ${new URL(scratch.url).pathname.slice(1)} SET TimeZone = 'America/New_York'`);
      await admin.end();
      const database = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
      try {
        await migrate(database);
        const [orgId, campaignId] = [randomUUID(), randomUUID()];
        const click = (at: string) => ({
          orgId,
          campaignId,
          variant: 0,
          userId: randomUUID(),
          destination: 'https://shop.example/',
          at: new Date(at),
          address: '198.51.100.1',
          userAgent: '',
          suspectedBot: false,
          botReason: null,
        });
        // 02:00 UTC on the 27th is 21:00 on the 26th in New York.
        await clicksRepo.insertMany(database.db, [click('2026-11-27T02:00:00Z'), click('2026-11-26T23:59:59Z')]);
        const day = (d: string) => campaignStatsRepo.byVariantAndDay(database.db, orgId, campaignId, d, d);
        assert.deepEqual(
          (await day('2026-11-27')).map((r) => [r.day, r.clicks]),
          [['2026-11-27', 1]],
        );
        assert.deepEqual(
          (await day('2026-11-26')).map((r) => [r.day, r.clicks]),
          [['2026-11-26', 1]],
        );
      } finally {
        await database.close();
      }
    } finally {
      await scratch.drop();
    }
  });
});

describe('the embedded database', () => {
  // ANALYZE holds 300 × default_statistics_target whole rows in the WebAssembly memory, which
  // never shrinks (src/store/db.ts): the embedded store keeps 20 buckets, not PostgreSQL's 100.
  test('the embedded database analyzes with a statistics target of 20 (21 histogram bounds)', async () => {
    const database = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot: await emptySnapshot() });
    try {
      await database.execScript('CREATE TABLE wide (n integer); INSERT INTO wide SELECT generate_series(1, 20000); ANALYZE wide');
      const bounds = sql<{ bounds: number }>`SELECT array_length(histogram_bounds, 1) AS bounds FROM pg_stats WHERE tablename = 'wide'`;
      const { rows } = await bounds.execute(database.db);
      assert.deepEqual(rows, [{ bounds: 21 }]);
    } finally {
      await database.close();
    }
  });
});

describe('health follows a PostgreSQL server that goes away and comes back', () => {
  test('503 while unreachable, 200 again without a restart', async (t) => {
    if (!(await postgresAvailable())) return t.skip(NEEDS_POSTGRES);
    const db = await scratchBehindProxy();
    const { proxy } = db;
    const server = await startServer({ DATABASE_URL: db.url });
    try {
      assert.equal((await server.request('GET', '/health')).status, 200);
      proxy.cut();
      const down = await server.request('GET', '/health');
      assert.equal(down.status, 503);
      assert.equal(down.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.ok(down.body.error.details.failing.includes('database'));
      proxy.restore();
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i++) {
        status = (await server.request('GET', '/health')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(status, 200);
    } finally {
      await server.close();
      await db.close();
    }
  });
});
