import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer } from './helpers/server.ts';
import { createLogger } from '../src/log.ts';
import { createClickService } from '../src/clicks/service.ts';
import { clickKey } from '../src/clicks/token.ts';
import { sql } from 'kysely';

// The clicks held in memory are bounded (src/clicks/service.ts, `room`): while the database does
// not take them, a new click waits for room rather than growing the buffer, and none is dropped.
// The database refuses here for a real reason: the clicks' table is not there (renamed away by the
// test) until the test puts it back.
test('at the bound, a click waits until a write makes room; a failed write makes none; nothing is dropped', async () => {
  const server = await startServer();
  const db = server.deps.database.db;
  const at = new Date('2026-03-02T10:00:00.000Z');
  const clicks = createClickService({
    db,
    key: clickKey('room'),
    baseUrl: server.url,
    clock: () => at,
    logger: createLogger('silent', false),
    maxUnwritten: 3,
  });
  try {
    // An org that is not in the orgs table: the clicks are written all the same (migration 142).
    const orgId = randomUUID();
    await sql`alter table clicks rename to clicks_away`.execute(db);
    const token = clicks.trackUrl({ orgId, campaignId: null, variant: null, userId: randomUUID(), destination: 'https://docs.example/' }).split('/v1/c/')[1]!;
    const follow = (i: number) => assert.ok(clicks.follow(token, { address: `198.51.100.${i}`, userAgent: 'Mozilla/5.0 Safari/605.1.15' }, true));
    for (let i = 0; i < 3; i++) {
      assert.equal(clicks.room(), undefined, `room for click ${i}`);
      follow(i);
    }
    const wait = clicks.room();
    assert.ok(wait, 'three unwritten: the fourth waits');
    let released = false;
    void wait.then(() => {
      released = true;
    });
    await clicks.flush();
    assert.equal(released, false, 'the database refused them: still no room');
    assert.ok(clicks.room(), 'and the next click waits too');

    await sql`alter table clicks_away rename to clicks`.execute(db);
    await clicks.flush();
    await wait;
    follow(3);
    await clicks.flush();
    const rows = await db.selectFrom('clicks').select('address').where('org_id', '=', orgId).orderBy('address').execute();
    assert.deepEqual(
      rows.map((r) => r.address),
      ['198.51.100.0', '198.51.100.1', '198.51.100.2', '198.51.100.3'],
      'every click written, once',
    );
  } finally {
    await clicks.close();
    await server.close();
  }
});
