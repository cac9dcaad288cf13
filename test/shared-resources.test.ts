// What the test files of a shard share (test/helpers/shared-resources.ts): a file starts on an
// empty database whichever file ran before it, the identity provider's keys excepted, and a server
// another file left open stops the next file's first server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { claimShared, IN_SHARD } from './helpers/shared-resources.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import type { Db } from '../src/store/db.ts';
import { idpKeysRepo } from '../src/store/repositories/idp-keys.ts';

// Names of files that do not exist: each stands for another test file of the shard.
const fileA = `shared-a-${randomUUID()}.test.ts`;
const fileB = `shared-b-${randomUUID()}.test.ts`;
const options = { embedded: true, postgresUrl: undefined, threads: 1 };

const count = async (db: Db, table: 'orgs' | 'idp_keys') =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('what the files of a shard share', () => {
  test('a server of another file while one of the first is open: refused, naming the file that left it', async () => {
    const a = await claimShared(fileA, options);
    try {
      await assert.rejects(claimShared(fileB, options), new RegExp(`a server that ${fileA} started is still open`));
      // The same file may have several open.
      const again = await claimShared(fileA, options);
      await again.release();
    } finally {
      await a.release();
    }
    const b = await claimShared(fileB, options);
    await b.release();
  });

  test('in a shard the next file gets the same embedded database, emptied but for the signing keys', {
    skip: !IN_SHARD && 'in a shard of test/run.ts only: elsewhere the database closes with its last server',
  }, async () => {
    const a = await claimShared(fileA, options);
    const db = a.shared.database!.db;
    // Not a usable key: it is removed at the end, before any server of the shard reads the keys.
    const kid = `shared-resources-test-${randomUUID()}`;
    try {
      await db.insertInto('orgs').values({ id: randomUUID(), name: 'Left by A', seats: 1, plan: 'free' }).execute();
      await idpKeysRepo.insert(db, { kid, use: 'signing', material: {} }, new Date());
      const keys = await count(db, 'idp_keys');
      await a.release();

      const b = await claimShared(fileB, options);
      try {
        assert.equal(b.shared.database, a.shared.database, 'one database for the shard');
        assert.equal(await count(db, 'orgs'), 0, 'what the file before wrote is gone');
        assert.equal(await count(db, 'idp_keys'), keys, 'the signing keys are kept');
      } finally {
        await b.release();
      }
    } finally {
      await db.deleteFrom('idp_keys').where('kid', '=', kid).execute();
      await a.release();
    }
  });

  test("on PostgreSQL, the next file finds the shard's database empty", { skip: !ON_POSTGRES && 'the PostgreSQL pass only' }, async () => {
    const url = process.env.DATABASE_URL!;
    const pgOptions = { embedded: false, postgresUrl: url, threads: 1 };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const a = await claimShared(fileA, pgOptions);
      await client.query(`INSERT INTO orgs (id, name, seats, plan) VALUES ($1, 'Left by A', 1, 'free')`, [randomUUID()]);
      await a.release();
      const b = await claimShared(fileB, pgOptions);
      await b.release();
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM orgs');
      assert.equal(rows[0]!.n, 0);
    } finally {
      await client.end();
    }
  });
});
