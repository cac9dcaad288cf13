import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, type TestOrg } from './helpers/fixtures.ts';
import { api, ok, refused } from './helpers/api.ts';

describe('templates', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());
  const base = () => `/v1/orgs/${org.orgId}/templates`;
  const templatePath = (o: TestOrg, templateId: string) => ({ params: { path: { orgId: o.orgId, templateId } } });

  test('the first template becomes the default; making another the default moves it', async () => {
    const fresh = await createOrg(server);
    const client = api(server, fresh);
    const first = await createTemplate(server, fresh);
    assert.equal(first.isDefault, true);
    const second = await createTemplate(server, fresh, { name: 'Second' });
    assert.equal(second.isDefault, false);
    const moved = ok(
      await client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
        ...templatePath(fresh, second.templateId),
        body: { version: second.version, isDefault: true },
      }),
      200,
    );
    assert.equal(moved.isDefault, true);
    const old = ok(await client.GET('/v1/orgs/{orgId}/templates/{templateId}', templatePath(fresh, first.templateId)));
    assert.equal(old.isDefault, false);
    assert.equal(old.version, first.version + 1, 'losing the default is a change');
    const third = await createTemplate(server, fresh, { name: 'Third', isDefault: true });
    const list = ok(await client.GET('/v1/orgs/{orgId}/templates', { params: { path: { orgId: fresh.orgId } } }));
    assert.deepEqual(
      list.items.filter((t) => t.isDefault).map((t) => t.templateId),
      [third.templateId],
    );
  });

  test('a stale PATCH that asks for the default changes nothing', async () => {
    const fresh = await createOrg(server);
    const client = api(server, fresh);
    const first = await createTemplate(server, fresh);
    const second = await createTemplate(server, fresh, { name: 'Second' });
    refused(
      await client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
        ...templatePath(fresh, second.templateId),
        body: { version: second.version + 3, isDefault: true },
      }),
      409,
    );
    const still = ok(await client.GET('/v1/orgs/{orgId}/templates/{templateId}', templatePath(fresh, first.templateId)));
    assert.equal(still.isDefault, true);
    assert.equal(still.version, first.version);
  });

  test('CRUD, validation and soft deletion', async () => {
    const client = api(server, org);
    const created = await createTemplate(server, org, { name: 'Sales', html: '<b>{{ user.name }}</b>', text: '' });
    const at = templatePath(org, created.templateId);
    const read = ok(await client.GET('/v1/orgs/{orgId}/templates/{templateId}', at));
    assert.equal(read.name, 'Sales');
    assert.equal(read.html, '<b>{{ user.name }}</b>');
    const patched = ok(await client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', { ...at, body: { version: 1, name: 'Sales EMEA' } }), 200);
    assert.equal(patched.version, 2);
    // Malformed on purpose: raw requests.
    for (const body of [{ html: '<p/>' }, { name: '', html: '<p/>' }, { name: 'x', html: 5 }, { name: 'x', html: 'x'.repeat(100_001) }]) {
      assert.equal((await server.request('POST', base(), { key: org.key, body })).status, 400, JSON.stringify(body).slice(0, 60));
    }
    ok(await client.DELETE('/v1/orgs/{orgId}/templates/{templateId}', at), 204);
    refused(await client.GET('/v1/orgs/{orgId}/templates/{templateId}', at), 404);
    refused(await client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', { ...at, body: { version: 3, name: 'x' } }), 404);
    const list = ok(await client.GET('/v1/orgs/{orgId}/templates', { params: { path: { orgId: org.orgId } } }));
    assert.ok(!list.items.some((t) => t.templateId === created.templateId));
    const audit = ok(await client.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: org.orgId }, query: { targetId: created.templateId } } }));
    assert.deepEqual(
      audit.items.map((e) => e.action),
      ['template.delete', 'template.update', 'template.create'],
    );
  });
});
