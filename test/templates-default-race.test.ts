// Issue 13.6: concurrent saves that each make a template the org's default. Each one succeeds (the
// last to commit is the default) or is a 409; never a 500 from the one-default index. Runs on the
// store the environment names: the race shows on PostgreSQL, whose connections work in parallel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, type TestOrg } from './helpers/fixtures.ts';

describe('concurrent saves of the default template', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const defaults = async (org: TestOrg) => {
    const list = await server.request('GET', `/v1/orgs/${org.orgId}/templates?limit=200`, { key: org.key });
    return list.body.items.filter((t: { isDefault: boolean }) => t.isDefault).map((t: { templateId: string }) => t.templateId);
  };

  test('a burst of creates with isDefault: true, and of creates in an org with no default yet', async () => {
    for (let round = 0; round < 3; round++) {
      for (const isDefault of [true, undefined]) {
        const org = await createOrg(server);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            server.request('POST', `/v1/orgs/${org.orgId}/templates`, {
              key: org.key,
              body: { name: `T${i}`, html: '<p>{{ user.name }}</p>', ...(isDefault ? { isDefault } : {}) },
            }),
          ),
        );
        for (const a of answers) assert.equal(a.status, 201, `isDefault ${isDefault}: ${a.status} ${a.text}`);
        const found = await defaults(org);
        assert.equal(found.length, 1, 'one default');
        if (!isDefault) {
          // Without isDefault only the first save (in commit order) becomes the default.
          assert.equal(answers.filter((a) => a.body.isDefault).length, 1);
        }
      }
    }
  });

  test('a burst of PATCHes making different templates the default, mixed with creates', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrg(server);
      const templates = [];
      for (let i = 0; i < 8; i++) templates.push(await createTemplate(server, org, { name: `T${i}` }));
      const answers = await Promise.all([
        ...templates.map((t) =>
          server.request('PATCH', `/v1/orgs/${org.orgId}/templates/${t.templateId}`, { key: org.key, body: { version: t.version, isDefault: true } }),
        ),
        ...Array.from({ length: 4 }, (_, i) =>
          server.request('POST', `/v1/orgs/${org.orgId}/templates`, { key: org.key, body: { name: `N${i}`, html: '<p>x</p>', isDefault: true } }),
        ),
      ]);
      for (const a of answers) assert.ok([200, 201, 409].includes(a.status), `${a.status} ${a.text}`);
      // A PATCH loses only to a change of its own template (clearing the default bumps the version).
      assert.ok(answers.some((a) => a.status === 200));
      assert.equal((await defaults(org)).length, 1, 'one default');
    }
  });
});
