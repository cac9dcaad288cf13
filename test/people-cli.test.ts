// The command line and the migration side of people getting in (docs/api.md): `org create` without `--owner-password`
// invites the owner (and prints `ownerInvitationUrl`), refuses an address another org's live user
// has; the migration that makes addresses unique across the stage stops, naming shared ones.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { emptySnapshot } from './helpers/snapshot.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrate, migrationFiles } from '../src/store/migrate.ts';

describe('org create invites the owner', () => {
  test('without --owner-password: ownerInvitationUrl, an invited owner; the same address again is refused', async () => {
    const store = await isolatedStore();
    try {
      const email = `boss-${randomUUID().slice(0, 8)}@example.test`;
      const env = { ...store.env, AUTH_URL: 'https://id.example.test/auth' };
      const made = await runCli(['org', 'create', '--name', 'Invited Co', '--owner-email', email], env);
      assert.equal(made.code, 0, made.stderr);
      const out = JSON.parse(made.stdout);
      assert.match(out.ownerInvitationUrl, /^https:\/\/id\.example\.test\/auth\/invitation\/[A-Za-z0-9_-]{43}$/);
      assert.ok(out.orgId && out.ownerUserId && out.apiKey.key);

      const withPassword = await runCli(
        ['org', 'create', '--name', 'Has PW', '--owner-email', `pw-${email}`, '--owner-password', 'a long owner password'],
        env,
      );
      assert.equal(withPassword.code, 0, withPassword.stderr);
      assert.equal(JSON.parse(withPassword.stdout).ownerInvitationUrl, undefined);

      const again = await runCli(['org', 'create', '--name', 'Second Co', '--owner-email', email.toUpperCase()], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already belongs to a user of another organisation/);
      assert.equal(again.stdout, '');
    } finally {
      await store.cleanup();
    }
  });
});

describe('migration 011: addresses unique across the stage', () => {
  test('stops, naming the addresses live users of two orgs share; applies once they are fixed', async () => {
    const database = await openDatabase({ databaseUrl: 'memory://', dataDir: 'unused', snapshot: await emptySnapshot() });
    try {
      // The schema as it was before 011, with two orgs sharing two addresses (one only by case).
      await sql`create table schema_migrations (version text primary key, applied_at timestamptz not null default now())`.execute(database.db);
      for (const f of migrationFiles().filter((m) => m.version < '011')) {
        await database.execScript(f.script);
        await database.db.insertInto('schema_migrations').values({ version: f.version }).execute();
      }
      const [a, b] = [randomUUID(), randomUUID()];
      await database.db
        .insertInto('orgs')
        .values([
          { id: a, name: 'A' },
          { id: b, name: 'B' },
        ])
        .execute();
      const user = (org: string, email: string, deleted = false) => ({
        id: randomUUID(),
        org_id: org,
        email,
        role: 'member' as const,
        password_hash: null,
        ...(deleted ? { deleted_at: new Date() } : {}),
      });
      await database.db
        .insertInto('users')
        .values([
          user(a, 'shared@example.test'),
          user(b, 'shared@example.test'),
          user(a, 'Case@example.test'),
          user(b, 'case@EXAMPLE.test'),
          user(a, 'gone@example.test'),
          user(b, 'gone@example.test', true),
        ] as never)
        .execute();
      await assert.rejects(migrate(database), (err: Error) => {
        assert.match(err.message, /case@example\.test, shared@example\.test/);
        assert.doesNotMatch(err.message, /gone@/);
        return true;
      });
      await database.db.updateTable('users').set({ deleted_at: new Date() }).where('org_id', '=', b).execute();
      const { applied } = await migrate(database);
      assert.ok(applied.includes('011_people'));
      const statuses = await database.db.selectFrom('users').select('status').distinct().execute();
      assert.deepEqual(
        statuses.map((s) => s.status),
        ['invited'],
        'users without a password are invited',
      );
    } finally {
      await database.close();
    }
  });
});
