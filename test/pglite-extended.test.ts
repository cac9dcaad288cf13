import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.ts';
import { isUniqueViolation } from '../src/store/errors.ts';

// The embedded store's statements with parameters go to PGlite in one exchange, their parameters
// spelled as text (src/store/pglite-extended.ts): what each kind of value becomes, and that an
// error leaves the connection usable.
describe('the embedded store: parameters as text, one exchange a statement', () => {
  let database: Database;
  before(async () => {
    database = await openDatabase({ databaseUrl: 'memory://', dataDir: '' });
  });
  after(() => database.close());

  test('each kind of value arrives as itself', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const at = new Date('2026-11-26T12:34:56.789Z');
    const row = await sql<Record<string, unknown>>`select ${'it\'s "quoted", \\ back'}::text as text, ${42}::int as int, ${'9007199254740993'}::bigint as big,
      ${true}::boolean as yes, ${false}::boolean as no, ${at}::timestamptz as at, ${at}::date as day, ${bytes}::bytea as bytes,
      ${Buffer.from('héllo')}::bytea as buffer, ${JSON.stringify({ a: [1, 'two'] })}::jsonb as json, ${null}::text as nothing`
      .execute(database.db)
      .then((r) => r.rows[0]);
    assert.deepEqual(row, {
      text: 'it\'s "quoted", \\ back',
      int: 42,
      big: '9007199254740993',
      yes: true,
      no: false,
      at,
      day: new Date('2026-11-26T00:00:00.000Z'),
      bytes,
      buffer: new Uint8Array(Buffer.from('héllo')),
      json: { a: [1, 'two'] },
      nothing: null,
    });
  });

  test('arrays become array literals: quotes, commas, backslashes, braces and nulls kept', async () => {
    const texts = ['plain', 'a,b', 'say "hi"', 'back\\slash', '{braces}', 'NULL', '', null];
    const rows = await sql<{ t: string | null; n: number }>`select t, n::int from unnest(${texts}::text[]) with ordinality as u(t, n) order by n`.execute(database.db);
    assert.deepEqual(
      rows.rows.map((r) => r.t),
      texts,
    );
    const uuids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    const count = await sql<{ c: string }>`select count(*) as c from unnest(${uuids}::uuid[]) as id`.execute(database.db);
    assert.equal(count.rows[0]?.c, '2');
    const days = await sql<{ d: string }>`select string_agg(d::text, ' ') as d from unnest(${[new Date('2026-01-02T00:00:00Z'), new Date('2026-03-04T00:00:00Z')]}::date[]) as d`.execute(database.db);
    assert.equal(days.rows[0]?.d, '2026-01-02 2026-03-04');
  });

  test('an error keeps its SQLSTATE, constraint and statement, and the next statement runs', async () => {
    await sql`create table extended_probe (id text primary key)`.execute(database.db);
    await sql`insert into extended_probe values (${'one'})`.execute(database.db);
    const err = await sql`insert into extended_probe values (${'one'})`.execute(database.db).then(
      () => undefined,
      (e: unknown) => e as { code?: string; constraint?: string; query?: string; params?: unknown },
    );
    assert.ok(err, 'the duplicate is refused');
    assert.ok(isUniqueViolation(err, 'extended_probe_pkey'));
    assert.match(err.query ?? '', /insert into extended_probe/);
    assert.equal(err.params, undefined, 'no parameter values on the error (they may be personal data)');
    const after = await sql<{ n: string }>`select count(*) as n from extended_probe where id = ${'one'}`.execute(database.db);
    assert.equal(after.rows[0]?.n, '1');
    const inTx = await database.db.transaction().execute(async (tx) => {
      await sql`insert into extended_probe values (${'two'})`.execute(tx);
      return sql<{ n: string }>`select count(*) as n from extended_probe`.execute(tx);
    });
    assert.equal(inTx.rows[0]?.n, '2');
  });
});
