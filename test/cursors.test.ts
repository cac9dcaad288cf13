// Issue 13.15: every cursor is exact. Rows written by one statement share their timestamps to the
// microsecond (now() is the transaction's time); walked one row a page, each list must show every
// row once, in order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, type TestOrg } from './helpers/fixtures.ts';

const ROWS = 12;

describe('cursors are exact: rows sharing a timestamp to the microsecond, walked with limit=1', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  async function walk(path: string, idOf: (item: Record<string, unknown>) => string): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 200; pages++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await server.request('GET', `${path}${sep}limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.items.length <= 1);
      seen.push(...res.body.items.map(idOf));
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
    }
    assert.fail(`${path}: no end after 200 pages`);
  }

  /** Every row of `table` for the org that one statement wrote shares one timestamp. */
  async function sharedTimestamp(table: string, column: string, ids: string[]) {
    const { rows } = await sql<{ n: number }>`
      select count(distinct ${sql.ref(column)})::int as n
      from ${sql.table(table)} where id::text = any(${ids}::text[])`.execute(server.deps.database.db);
    assert.equal(rows[0]?.n, 1, `${table}: the rows share ${column}`);
  }

  test('users', async () => {
    const { rows } = await sql<{ id: string }>`
      insert into users (id, org_id, email, role)
      select gen_random_uuid(), ${org.orgId}::uuid, 'same-' || g || '-' || ${org.orgId} || '@example.test', 'member'
      from generate_series(1, ${ROWS}) g returning id`.execute(server.deps.database.db);
    const ids = rows.map((r) => r.id);
    await sharedTimestamp('users', 'created_at', ids);
    const seen = await walk(`/v1/orgs/${org.orgId}/users`, (u) => u.userId as string);
    assert.equal(new Set(seen).size, seen.length, 'no user twice');
    assert.deepEqual(
      seen.filter((id) => ids.includes(id)),
      ids,
      'every user once, in creation order',
    );
    assert.equal(seen.length, ROWS + 1, 'and the owner');
  });

  test('templates', async () => {
    const { rows } = await sql<{ id: string }>`
      insert into templates (id, org_id, name, html, text, html_prepared)
      select gen_random_uuid(), ${org.orgId}::uuid, 'T' || g, '<p>x</p>', '', '<p>x</p>'
      from generate_series(1, ${ROWS}) g returning id`.execute(server.deps.database.db);
    const ids = rows.map((r) => r.id);
    await sharedTimestamp('templates', 'created_at', ids);
    assert.deepEqual(await walk(`/v1/orgs/${org.orgId}/templates`, (t) => t.templateId as string), ids);
  });

  test('API keys', async () => {
    const { rows } = await sql<{ id: string }>`
      insert into api_keys (id, org_id, name, prefix, key_hash)
      select gen_random_uuid(), ${org.orgId}::uuid, 'K' || g, 'svc_dev_x', md5(random()::text || g)
      from generate_series(1, ${ROWS}) g returning id`.execute(server.deps.database.db);
    const ids = rows.map((r) => r.id);
    await sharedTimestamp('api_keys', 'created_at', ids);
    const seen = await walk(`/v1/orgs/${org.orgId}/api-keys`, (k) => k.keyId as string);
    assert.deepEqual(seen, [org.keyId, ...ids]);
  });

  test('audit trail (newest first), with and without a filter', async () => {
    const target = `same-${org.orgId}`;
    const { rows } = await sql<{ id: string }>`
      insert into audit_entries (org_id, actor_type, actor_id, action, target_id)
      select ${org.orgId}::uuid, 'system', 'test', 'test.same', ${target}
      from generate_series(1, ${ROWS}) g returning id`.execute(server.deps.database.db);
    const ids = rows.map((r) => r.id);
    await sharedTimestamp('audit_entries', 'at', ids);
    // The entries carry no id of their own in the API: count them, and their order by position.
    for (const path of [`/v1/orgs/${org.orgId}/audit?action=test.same`, `/v1/orgs/${org.orgId}/audit?targetId=${target}`]) {
      const seen = await walk(path, (e) => `${e.action}|${e.targetId}|${e.at}`);
      assert.equal(seen.length, ROWS, `${path}: every entry once`);
    }
    const all = await walk(`/v1/orgs/${org.orgId}/audit`, (e) => e.action as string);
    assert.equal(all.filter((a) => a === 'test.same').length, ROWS);
  });
});
