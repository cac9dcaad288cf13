import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, type TestOrg } from './helpers/fixtures.ts';

describe('templates', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());
  const base = () => `/v1/orgs/${org.orgId}/templates`;

  test('the first template becomes the default; making another the default moves it', async () => {
    const fresh = await createOrg(server);
    const first = await createTemplate(server, fresh);
    assert.equal(first.isDefault, true);
    const second = await createTemplate(server, fresh, { name: 'Second' });
    assert.equal(second.isDefault, false);
    const moved = await server.request('PATCH', `/v1/orgs/${fresh.orgId}/templates/${second.templateId}`, {
      key: fresh.key,
      body: { version: second.version, isDefault: true },
    });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.isDefault, true);
    const old = await server.request('GET', `/v1/orgs/${fresh.orgId}/templates/${first.templateId}`, { key: fresh.key });
    assert.equal(old.body.isDefault, false);
    assert.equal(old.body.version, first.version + 1, 'losing the default is a change');
    const third = await createTemplate(server, fresh, { name: 'Third', isDefault: true });
    const list = await server.request('GET', `/v1/orgs/${fresh.orgId}/templates`, { key: fresh.key });
    assert.deepEqual(
      list.body.items.filter((t: { isDefault: boolean }) => t.isDefault).map((t: { templateId: string }) => t.templateId),
      [third.templateId],
    );
  });

  test('a stale PATCH that asks for the default changes nothing', async () => {
    const fresh = await createOrg(server);
    const first = await createTemplate(server, fresh);
    const second = await createTemplate(server, fresh, { name: 'Second' });
    const stale = await server.request('PATCH', `/v1/orgs/${fresh.orgId}/templates/${second.templateId}`, {
      key: fresh.key,
      body: { version: second.version + 3, isDefault: true },
    });
    assert.equal(stale.status, 409);
    const still = await server.request('GET', `/v1/orgs/${fresh.orgId}/templates/${first.templateId}`, { key: fresh.key });
    assert.equal(still.body.isDefault, true);
    assert.equal(still.body.version, first.version);
  });

  test('CRUD, validation and soft deletion', async () => {
    const created = await createTemplate(server, org, { name: 'Sales', html: '<b>{{ user.name }}</b>', text: '' });
    const path = `${base()}/${created.templateId}`;
    const read = await server.request('GET', path, { key: org.key });
    assert.equal(read.body.name, 'Sales');
    assert.equal(read.body.html, '<b>{{ user.name }}</b>');
    const patched = await server.request('PATCH', path, { key: org.key, body: { version: 1, name: 'Sales EMEA' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.version, 2);
    for (const body of [{ html: '<p/>' }, { name: '', html: '<p/>' }, { name: 'x', html: 5 }, { name: 'x', html: 'x'.repeat(100_001) }]) {
      assert.equal((await server.request('POST', base(), { key: org.key, body })).status, 400, JSON.stringify(body).slice(0, 60));
    }
    assert.equal((await server.request('DELETE', path, { key: org.key })).status, 204);
    assert.equal((await server.request('GET', path, { key: org.key })).status, 404);
    assert.equal((await server.request('PATCH', path, { key: org.key, body: { version: 3, name: 'x' } })).status, 404);
    const list = await server.request('GET', base(), { key: org.key });
    assert.ok(!list.body.items.some((t: { templateId: string }) => t.templateId === created.templateId));
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?targetId=${created.templateId}`, { key: org.key });
    assert.deepEqual(audit.body.items.map((e: { action: string }) => e.action), ['template.delete', 'template.update', 'template.create']);
  });
});
