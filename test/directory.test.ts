// Applying a directory's users to an org (src/directory/), on the real store, as the Google and
// Microsoft syncs use it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';
import type { DirectoryUser } from '../src/directory/plan.ts';

const dirUser = (domain: string, n: number, over: Partial<DirectoryUser> = {}): DirectoryUser => ({
  externalId: `ext-${domain}-${n}`,
  email: `user${n}@${domain}`,
  name: `User ${n}`,
  title: 'Engineer',
  department: 'R&D',
  phone: '+1 555 0100',
  mobile: '',
  active: true,
  ...over,
});

describe('directory: applying a directory to an org', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const apply = (org: TestOrg, directory: DirectoryUser[], dryRun = false) =>
    server.deps.directory.apply({ orgId: org.orgId, source: 'google', directory, dryRun, correlationId: 'test' });
  const listUsers = async (org: TestOrg) => {
    const res = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key });
    assert.equal(res.status, 200);
    return res.body.items as { userId: string; email: string; name: string; title: string; role: string; status: string }[];
  };

  test('a dry run answers the counts and changes nothing; the real run makes exactly those changes, audited and recorded', async () => {
    const org = await createOrg(server, { seats: 50 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    const directory = [1, 2, 3].map((n) => dirUser(domain, n));
    const before = await listUsers(org);
    const dry = await apply(org, directory, true);
    assert.deepEqual({ ...dry, changes: undefined }, { created: 3, updated: 0, deleted: 0, skipped: 0, changes: undefined, runId: null });
    assert.deepEqual(await listUsers(org), before, 'a dry run changes nothing');
    assert.equal(await server.deps.directory.lastRun(org.orgId, 'google'), undefined, 'and records nothing');

    const run = await apply(org, directory);
    assert.deepEqual([run.created, run.updated, run.deleted, run.skipped], [3, 0, 0, 0]);
    const users = await listUsers(org);
    const created = users.filter((u) => u.email.endsWith(domain));
    assert.equal(created.length, 3);
    assert.ok(created.every((u) => u.role === 'member' && u.title === 'Engineer'));
    const recorded = await server.deps.directory.lastRun(org.orgId, 'google');
    assert.equal(recorded?.id, run.runId);
    assert.equal(recorded?.created, 3);
    assert.equal((recorded?.changes as unknown[] | undefined)?.length, 3);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=user.create`, { key: org.key });
    const bySync = audit.body.items.filter((e: { actor: { id: string } }) => e.actor.id === 'directory:google');
    assert.equal(bySync.length, 3);
    assert.deepEqual(bySync[0].actor, { type: 'system', id: 'directory:google' });

    // Synced users have no password: they get in by an invitation or a password reset.
    const { accountsRepo } = await import('../src/store/repositories/accounts.ts');
    const account = await accountsRepo.byId(server.deps.database.db, created[0]!.userId);
    assert.equal((account as { password_hash?: string | null }).password_hash ?? null, null);

    // No invitation either (no mail, no link): an admin sends one, or the user resets a password.
    const tokens = await server.deps.database.db.selectFrom('account_tokens').select('account_id').where('org_id', '=', org.orgId).execute();
    assert.ok(!tokens.some((t) => created.some((u) => u.userId === t.account_id)), 'synced users are not invited');
    const invited = await createUser(server, org);
    const viaApi = await server.deps.database.db.selectFrom('account_tokens').select('purpose').where('account_id', '=', invited.userId).execute();
    assert.deepEqual(
      viaApi.map((t) => t.purpose),
      ['invitation'],
      'a user created through the API is (the check above can fail)',
    );

    // The same directory again changes nothing.
    const again = await apply(org, directory);
    assert.deepEqual([again.created, again.updated, again.deleted, again.skipped], [0, 0, 0, 0]);
  });

  test('a change in the directory reaches the user; suspended users are suspended, removed ones soft-deleted; API users are left alone', async () => {
    const org = await createOrg(server, { seats: 50 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    const apiUser = await createUser(server, org, { email: `api-only@${domain}` });
    await apply(
      org,
      [1, 2, 3].map((n) => dirUser(domain, n)),
    );
    const r = await apply(org, [dirUser(domain, 1, { title: 'CTO', name: 'Grace' }), dirUser(domain, 2, { active: false })]);
    assert.deepEqual([r.created, r.updated, r.deleted, r.skipped], [0, 2, 1, 0]);
    const users = await listUsers(org);
    const u1 = users.find((u) => u.email === `user1@${domain}`);
    assert.equal(u1?.title, 'CTO');
    assert.equal(u1?.name, 'Grace');
    assert.equal(users.find((u) => u.email === `user2@${domain}`)?.status, 'suspended', 'a suspended account suspends its user');
    assert.ok(!users.some((u) => u.email === `user3@${domain}`), 'gone users are deleted');
    // Active again in the directory: restored.
    const back = await apply(org, [dirUser(domain, 1, { title: 'CTO', name: 'Grace' }), dirUser(domain, 2)]);
    assert.deepEqual(
      back.changes.map((c) => [c.email, c.fields]),
      [[`user2@${domain}`, ['status']]],
    );
    assert.equal((await listUsers(org)).find((u) => u.email === `user2@${domain}`)?.status, 'invited');
    assert.ok(
      users.some((u) => u.userId === apiUser.userId),
      'a user the directory did not create stays',
    );
    // The read path sees the change at once (caches forgotten).
    const one = await server.request('GET', `/v1/orgs/${org.orgId}/users/${u1!.userId}`, { key: org.key });
    assert.equal(one.body.title, 'CTO');
  });

  test('a user created through the API is adopted by address, and then follows the directory', async () => {
    const org = await createOrg(server, { seats: 50 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    const apiUser = await createUser(server, org, { email: `user1@${domain}`, title: 'Old' });
    const r = await apply(org, [dirUser(domain, 1, { email: `USER1@${domain}` })]);
    assert.deepEqual([r.created, r.updated], [0, 1]);
    assert.equal(r.changes[0]!.userId, apiUser.userId);
    const gone = await apply(org, []);
    assert.equal(gone.deleted, 1, 'once adopted, leaving the directory deletes the user');
  });

  test('past the seat cap, and for an address another org uses, users are skipped with the reason and the rest goes on', async () => {
    const org = await createOrg(server, { seats: 3 });
    const other = await createOrg(server, { seats: 50 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    await createUser(server, other, { email: `user1@${domain}` });
    const r = await apply(
      org,
      [1, 2, 3, 4].map((n) => dirUser(domain, n)),
    );
    // The owner holds one of 3 seats; user1's address is another org's; users 2 and 3 fit; 4 does not.
    assert.deepEqual([r.created, r.skipped], [2, 2]);
    const reasons = Object.fromEntries(r.changes.filter((c) => c.action === 'skip').map((c) => [c.email, c.reason]));
    assert.deepEqual(reasons, { [`user1@${domain}`]: 'email_in_other_org', [`user4@${domain}`]: 'seat_limit' });
    const dry = await apply(
      org,
      [1, 2, 3, 4].map((n) => dirUser(domain, n)),
      true,
    );
    assert.deepEqual([dry.created, dry.skipped], [0, 2], 'a dry run judges the seats as the run would');
  });

  test("a deleted user's sessions end with them", async () => {
    const org = await createOrg(server, { seats: 50 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    const first = await apply(org, [dirUser(domain, 1)]);
    const userId = first.changes[0]!.userId!;
    const db = server.deps.database.db;
    await db
      .insertInto('oidc_payloads')
      .values({
        model: 'Session',
        id: randomUUID(),
        payload: JSON.stringify({ accountId: userId }),
        account_id: userId,
        grant_id: null,
        uid: null,
        user_code: null,
        expires_at: new Date(Date.now() + 3600_000),
      })
      .execute();
    await apply(org, [dirUser(domain, 1, { active: false })]);
    const left = await db.selectFrom('oidc_payloads').select('id').where('account_id', '=', userId).execute();
    assert.equal(left.length, 0);
  });

  // The seat check reads a count kept by the database (migration 042) instead of counting the
  // org's users in each creating transaction: these check that the count follows every kind of
  // write to users, and that a sync of a large org makes exactly the changes due.
  const liveCounts = async (orgId: string) => {
    const db = server.deps.database.db;
    const kept = await db.selectFrom('org_live_users').select('live').where('org_id', '=', orgId).executeTakeFirst();
    const counted = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where('status', '<>', 'suspended')
      .executeTakeFirstOrThrow();
    return { kept: kept?.live ?? 0, counted: Number(counted.n) };
  };

  test('the live-user count the seat check reads follows every write to users', async () => {
    const db = server.deps.database.db;
    const org = await createOrg(server, { seats: 50 });
    const other = await createOrg(server, { seats: 50 });
    const expect = async (orgId: string, n: number, what: string) => assert.deepEqual(await liveCounts(orgId), { kept: n, counted: n }, what);
    await expect(org.orgId, 1, 'the owner');
    const u1 = await createUser(server, org);
    await createUser(server, org);
    await expect(org.orgId, 3, 'created through the API');
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${u1.userId}`, { key: org.key })).status, 204);
    await expect(org.orgId, 2, 'deleted through the API');
    const domain = `${randomUUID().slice(0, 8)}.test`;
    await apply(
      org,
      [1, 2, 3].map((n) => dirUser(domain, n)),
    );
    await expect(org.orgId, 5, 'created by a sync');
    await apply(org, [dirUser(domain, 1, { active: false }), dirUser(domain, 2), dirUser(domain, 3)]);
    await expect(org.orgId, 4, 'suspended in the directory');
    // Writes no service makes, straight in SQL: the count still follows.
    const id = randomUUID();
    await db
      .insertInto('users')
      .values({ id, org_id: org.orgId, email: `raw-${id}@x.test`, role: 'member' })
      .execute();
    await expect(org.orgId, 5, 'inserted');
    await db.updateTable('users').set({ name: 'Renamed', deleted_at: null }).where('id', '=', id).execute();
    await expect(org.orgId, 5, 'a live user updated');
    await db.updateTable('users').set({ org_id: other.orgId }).where('id', '=', id).execute();
    await expect(org.orgId, 4, 'moved out');
    await expect(other.orgId, 2, 'moved in');
    await db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', id).execute();
    await expect(other.orgId, 1, 'deleted');
    await db
      .updateTable('users')
      .set({ deleted_at: new Date(Date.now() + 1000) })
      .where('id', '=', id)
      .execute();
    await expect(other.orgId, 1, 'a deleted user updated');
    await db.updateTable('users').set({ deleted_at: null }).where('id', '=', id).execute();
    await expect(other.orgId, 2, 'restored');
    await db.deleteFrom('users').where('id', '=', id).execute();
    await expect(other.orgId, 1, 'removed');
  });

  test('on an org of 5,000 users a sync makes exactly the changes due, and the seat cap holds', { timeout: 300_000 }, async () => {
    const org = await createOrg(server, { seats: 5_000 });
    const domain = `${randomUUID().slice(0, 8)}.test`;
    const n = 4_999;
    // The org's users as an earlier sync left them, written in one statement (the owner is the
    // 5,000th), longer than the service's statement timeout allows on PostgreSQL.
    await server.deps.database.unbounded((db) =>
      sql`
      INSERT INTO users (id, org_id, email, name, role, title, department, phone, mobile, directory_source, directory_id)
      SELECT gen_random_uuid(), ${org.orgId}, 'user' || i || '@' || ${domain}, 'User ' || i, 'member', 'Engineer', 'R&D', '+1 555 0100', '', 'google', 'ext-' || ${domain} || '-' || i
      FROM generate_series(1, ${n}) AS i`.execute(db),
    );
    assert.deepEqual(await liveCounts(org.orgId), { kept: 5_000, counted: 5_000 });

    // 100 suspended (their seats are freed first), 50 with a new title, 150 new of which 100 fit.
    const directory = [
      ...Array.from({ length: n }, (_, i) =>
        i < 100 ? dirUser(domain, i + 1, { active: false }) : i < 150 ? dirUser(domain, i + 1, { title: 'Manager' }) : dirUser(domain, i + 1),
      ),
      ...Array.from({ length: 150 }, (_, i) => dirUser(domain, n + 1 + i)),
    ];
    const dry = await apply(org, directory, true);
    const r = await apply(org, directory);
    assert.deepEqual([r.created, r.updated, r.deleted, r.skipped], [100, 150, 0, 50]);
    assert.deepEqual([dry.created, dry.updated, dry.deleted, dry.skipped], [100, 150, 0, 50], 'the dry run planned the same');
    const skipped = r.changes.filter((c) => c.action === 'skip');
    assert.ok(skipped.every((c) => c.reason === 'seat_limit'));
    assert.deepEqual(
      skipped.map((c) => c.email),
      Array.from({ length: 50 }, (_, i) => `user${n + 101 + i}@${domain}`),
      'the first entries take the free seats',
    );
    assert.deepEqual(
      r.changes.filter((c) => c.action === 'update').map((c) => [c.email, c.fields]),
      [
        ...Array.from({ length: 100 }, (_, i) => [`user${1 + i}@${domain}`, ['status']]),
        ...Array.from({ length: 50 }, (_, i) => [`user${101 + i}@${domain}`, ['title']]),
      ],
    );
    assert.deepEqual(await liveCounts(org.orgId), { kept: 5_000, counted: 5_000 });

    // Every seat taken: the API refuses another user, and the same sync again changes nothing.
    const refused = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: `extra@${domain}`, name: 'Extra' } });
    assert.equal(refused.status, 402, refused.text);
    const again = await apply(org, directory);
    assert.deepEqual([again.created, again.updated, again.deleted, again.skipped], [0, 0, 0, 50]);
  });
});
