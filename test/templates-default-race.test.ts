// Issue 13.6: concurrent saves that each make a template the org's default. Each one succeeds (the
// last to commit is the default) or is a 409; never a 500 from the one-default index. Runs on the
// store the environment names: the race shows on PostgreSQL, whose connections work in parallel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, type TestOrg } from './helpers/fixtures.ts';
import { api, ok } from './helpers/api.ts';

describe('concurrent saves of the default template', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const defaults = async (org: TestOrg) => {
    const list = ok(await api(server, org).GET('/v1/orgs/{orgId}/templates', { params: { path: { orgId: org.orgId }, query: { limit: 200 } } }));
    return list.items.filter((t) => t.isDefault).map((t) => t.templateId);
  };

  test('a burst of creates with isDefault: true, and of creates in an org with no default yet', async () => {
    for (let round = 0; round < 3; round++) {
      for (const isDefault of [true, undefined]) {
        const org = await createOrg(server);
        const client = api(server, org);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            client.POST('/v1/orgs/{orgId}/templates', {
              params: { path: { orgId: org.orgId } },
              body: { name: `T${i}`, html: '<p>{{ user.name }}</p>', ...(isDefault ? { isDefault } : {}) },
            }),
          ),
        );
        const saved = answers.map((a) => ok(a, 201));
        const found = await defaults(org);
        assert.equal(found.length, 1, 'one default');
        if (!isDefault) {
          // Without isDefault only the first save (in commit order) becomes the default.
          assert.equal(saved.filter((t) => t.isDefault).length, 1);
        }
      }
    }
  });

  test('a burst of PATCHes making different templates the default, mixed with creates', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrg(server);
      const templates = [];
      for (let i = 0; i < 8; i++) templates.push(await createTemplate(server, org, { name: `T${i}` }));
      const client = api(server, org);
      const answers = await Promise.all([
        ...templates.map((t) =>
          client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
            params: { path: { orgId: org.orgId, templateId: t.templateId } },
            body: { version: t.version, isDefault: true },
          }),
        ),
        ...Array.from({ length: 4 }, (_, i) =>
          client.POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId: org.orgId } }, body: { name: `N${i}`, html: '<p>x</p>', isDefault: true } }),
        ),
      ]);
      for (const a of answers) assert.ok([200, 201, 409].includes(a.response.status), `${a.response.status} ${JSON.stringify(a.error)}`);
      // A PATCH loses only to a change of its own template (clearing the default bumps the version).
      assert.ok(answers.some((a) => a.response.status === 200));
      assert.equal((await defaults(org)).length, 1, 'one default');
    }
  });
});
