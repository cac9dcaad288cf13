// The editor's completion list (web/app/templates/merge-fields.ts) offers exactly the variables the
// service renders: a template using each one saves without an "Unknown variable" warning, and one
// the list does not offer is warned about (so the check can fail).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { ALL_FIELDS, propertyCompletions, USER_FIELDS } from '../web/app/templates/merge-fields.ts';

describe("the editor's merge fields", () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  const save = (html: string) => server.request('POST', `/v1/orgs/${org.orgId}/templates`, { key: org.key, body: { name: 'Fields', html, isDefault: false } });

  test('every field the editor completes is one the service knows, and the service knows no other', async () => {
    const all = await save(ALL_FIELDS.map((f) => `{{ ${f} }}`).join(' '));
    assert.equal(all.status, 201, all.text);
    assert.deepEqual(
      all.body.warnings.filter((w: string) => w.startsWith('Unknown variable')),
      [],
    );
    // The service's own list of known variables (in its warning) is the editor's list.
    const unknown = await save('{{ user.nickname }}');
    const known = /Known: (.*)\.$/.exec(unknown.body.warnings[0])?.[1]?.split(', ');
    // Custom fields are the org's own: the editor offers them from GET …/fields, not from this list.
    assert.deepEqual(known?.filter((k) => k !== 'user.attributes.<key>').sort(), [...ALL_FIELDS].sort());
    assert.deepEqual(
      propertyCompletions(['user']).map((c) => c.label),
      USER_FIELDS.map(([f]) => f),
    );
    assert.deepEqual(
      propertyCompletions(['org']).map((c) => c.label),
      ['name', 'website', 'address', 'logo_url', 'social'],
    );
    assert.deepEqual(
      propertyCompletions(['user', 'social']).map((c) => c.label),
      ['linkedin', 'x', 'facebook', 'instagram', 'youtube', 'github'],
    );
    assert.deepEqual(propertyCompletions(['pixel_url']), []);
  });
});
