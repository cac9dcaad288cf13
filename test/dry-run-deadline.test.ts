// A directory's dry run reads the directory inside the request: a directory slower than the dry
// run's deadline (src/lib/deadline.ts) is a 503 that changes nothing, not a request held for minutes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOrgWithoutTemplates as createOrg } from './helpers/fixtures.ts';
import type { FakeGoogle } from './helpers/fake-google.ts';
import { connect, googleSuite, jobsSettled, workspace } from './helpers/google-setup.ts';
import type { TestServer } from './helpers/server.ts';

describe('the deadline of a Google dry run', () => {
  let fake: FakeGoogle;
  let server: TestServer;
  // A deadline the dry run in time meets on a loaded CI machine too (300 ms did not, once), and a
  // delay well past it for the late one.
  googleSuite((google) => ({ fake, server } = google), { dryRunDeadlineMs: 1000 });

  test('a Google dry run past its deadline answers 503 and changes nothing; in time it answers the changes', async () => {
    const org = await createOrg(server, { seats: 20 });
    const ws = workspace(fake, 3);
    await connect(server, org, ws, { syncUsers: false, pushSignatures: false });
    assert.deepEqual(await jobsSettled(server, org.orgId), []);
    const url = `/v1/orgs/${org.orgId}/integrations/google/sync?dryRun=true`;
    const users = async () => (await server.deps.database.db.selectFrom('users').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await users();

    fake.delayMs = 3000;
    const late = await server.request('POST', url, { key: org.key });
    assert.equal(late.status, 503, late.text);
    assert.equal(late.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.match(late.body.error.message, /Google did not answer within 1 s/);
    assert.ok(late.headers.get('retry-after'));
    assert.equal(await users(), before);

    fake.delayMs = 0;
    const dry = await server.request('POST', url, { key: org.key });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.created, 4, 'the admin and the three users');
    assert.equal(await users(), before);
  });
});
