// The Microsoft Entra connection and its directory sync, against a fake of Microsoft's identity
// platform and Graph (test/helpers/fake-microsoft.ts) reached through MICROSOFT_LOGIN_URL and
// MICROSOFT_GRAPH_URL: the mapping, paging, a disabled and a removed account, 429 with Retry-After,
// a wrong secret, the dry run, the schedule, and the connection's routes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { graphUser, startFakeMicrosoft, type FakeMicrosoft } from './helpers/fake-microsoft.ts';
import { waitFor } from './helpers/wait.ts';

/** Polls `read` until `ok` holds (helpers/wait.ts); answers the value that held. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const held = await waitFor(async () => {
    const v = await read();
    return ok(v) ? { v } : undefined;
  }, what);
  return held.v;
}

describe('Microsoft Entra directory sync', () => {
  let fake: FakeMicrosoft;
  let server: TestServer;
  before(async () => {
    fake = await startFakeMicrosoft();
    server = await startServer({ MICROSOFT_LOGIN_URL: fake.url, MICROSOFT_GRAPH_URL: fake.url, JOBS_POLL_MS: '100', JOBS_RETRY_BASE_MS: '100' });
  });
  after(async () => {
    await server?.close();
    await fake?.close();
  });

  /** A tenant in the fake and an org connected to it; answers the first sync's job. */
  async function connected(users: ReturnType<typeof graphUser>[], secret = 'the-right-secret') {
    const org = await createOrg(server);
    const tenantId = randomUUID();
    const clientId = randomUUID();
    fake.tenants.set(tenantId, { clientId, clientSecret: 'the-right-secret', users });
    const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/microsoft`, {
      key: org.key,
      body: { tenantId, clientId, clientSecret: secret },
    });
    assert.equal(res.status, 200, res.text);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=integration.microsoft.connect`, { key: org.key });
    const syncJob = (
      await server.deps.database.db
        .selectFrom('jobs')
        .select(['id'])
        .where('org_id', '=', org.orgId)
        .where('kind', '=', 'microsoft.sync')
        .executeTakeFirstOrThrow()
    ).id;
    return { org, tenantId, clientId, connect: res.body, audit: audit.body, syncJob };
  }

  const jobOf = (org: TestOrg, jobId: string) => server.request('GET', `/v1/orgs/${org.orgId}/jobs/${jobId}`, { key: org.key }).then((r) => r.body);
  const finished = (org: TestOrg, jobId: string) =>
    until(
      () => jobOf(org, jobId),
      (j) => j.state === 'succeeded' || j.state === 'failed',
      `job ${jobId} ends`,
    );
  const usersOf = async (org: TestOrg) =>
    (await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key })).body.items as {
      userId: string;
      email: string;
      name: string;
      title: string;
      department: string;
      phone: string;
      mobile: string;
      role: string;
      status: string;
    }[];

  test('connecting stores the secret sealed, answers no secret, and the first sync maps every page of users', async () => {
    const people = [
      graphUser({
        displayName: 'Ada Lovelace',
        jobTitle: 'Engineer',
        department: 'R&D',
        businessPhones: ['+44 20 7946 0000', '+44 20 7946 0001'],
        mobilePhone: '+44 7700 900000',
      }),
      graphUser({ displayName: 'Grace Hopper', mail: null, userPrincipalName: `grace-${randomUUID().slice(0, 6)}@contoso.onmicrosoft.com` }),
      graphUser({ displayName: 'Disabled Person', accountEnabled: false }),
      graphUser({ displayName: 'Alan Turing', jobTitle: 'Researcher' }),
      graphUser({ displayName: 'Katherine Johnson' }),
    ];
    const { org, connect, audit, syncJob } = await connected(people);
    assert.ok(!JSON.stringify(connect).includes('the-right-secret'));
    assert.equal(connect.lastSyncAt, null);
    // Connecting queues the first sync; the scheduler's is an interval (an hour by default) later, not a second one now.
    assert.ok(Date.parse(connect.nextSyncAt) > Date.now() + 3500_000, `next sync at ${connect.nextSyncAt}`);
    assert.equal(audit.items.length, 1);
    const row = await server.deps.database.db.selectFrom('microsoft_integrations').selectAll().where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    assert.ok(!row.sealed_secret.includes('the-right-secret'));

    const job = await finished(org, syncJob);
    assert.equal(job.state, 'succeeded', job.error);
    const users = await usersOf(org);
    const byEmail = new Map(users.map((u) => [u.email.toLowerCase(), u]));
    const ada = byEmail.get(people[0]!.mail!.toLowerCase());
    assert.deepEqual(ada && { name: ada.name, title: ada.title, department: ada.department, phone: ada.phone, mobile: ada.mobile, role: ada.role }, {
      name: 'Ada Lovelace',
      title: 'Engineer',
      department: 'R&D',
      phone: '+44 20 7946 0000',
      mobile: '+44 7700 900000',
      role: 'member',
    });
    assert.ok(byEmail.has(people[1]!.userPrincipalName!.toLowerCase()), 'no mail: userPrincipalName is the address');
    assert.ok(!byEmail.has(people[2]!.mail!.toLowerCase()), 'a disabled account gets no user');
    assert.ok(byEmail.has(people[4]!.mail!.toLowerCase()), 'the last page was read');
    assert.equal(users.length, 5, 'the owner and four synced users');
    // Three pages of two: every nextLink followed.
    assert.ok(fake.requests.filter((r) => r.path === '/v1.0/users' && r.query.get('$skiptoken') === '4').length >= 1);

    const status = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key });
    assert.equal(status.status, 200);
    assert.ok(status.body.lastSyncAt);
    assert.equal(status.body.lastError, null);
    assert.deepEqual(
      { ...status.body.lastRun, startedAt: undefined, finishedAt: undefined },
      { created: 4, updated: 0, deleted: 0, skipped: 0, startedAt: undefined, finishedAt: undefined },
    );
  });

  test('a dry run answers what a sync would change and changes nothing; the sync then disables, removes, updates and creates', async () => {
    const people = [
      graphUser({ displayName: 'Stays Same' }),
      graphUser({ displayName: 'Will Be Disabled' }),
      graphUser({ displayName: 'Will Leave' }),
      graphUser({ displayName: 'Gets Promoted', jobTitle: 'Analyst' }),
    ];
    const { org, tenantId, syncJob } = await connected(people);
    assert.equal((await finished(org, syncJob)).state, 'succeeded');
    const before = await usersOf(org);
    const tenant = fake.tenants.get(tenantId)!;
    const newcomer = graphUser({ displayName: 'New Starter' });
    tenant.users = [people[0]!, { ...people[1]!, accountEnabled: false }, { ...people[3]!, jobTitle: 'Director' }, newcomer];

    const dry = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/microsoft/sync?dryRun=true`, { key: org.key });
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(
      { created: dry.body.created, updated: dry.body.updated, deleted: dry.body.deleted, skipped: dry.body.skipped },
      { created: 1, updated: 2, deleted: 1, skipped: 0 },
    );
    assert.deepEqual(await usersOf(org), before, 'a dry run changes nothing');

    const started = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/microsoft/sync`, { key: org.key });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.body.kind, 'microsoft.sync');
    assert.equal((await finished(org, started.body.jobId)).state, 'succeeded');
    const emails = new Set((await usersOf(org)).map((u) => u.email.toLowerCase()));
    assert.ok(emails.has(newcomer.mail!.toLowerCase()));
    const disabled = (await usersOf(org)).find((u) => u.email.toLowerCase() === people[1]!.mail!.toLowerCase());
    assert.equal(disabled?.status, 'suspended', 'accountEnabled false: suspended');
    assert.ok(!emails.has(people[2]!.mail!.toLowerCase()), 'gone from the directory: soft-deleted');
    assert.equal((await usersOf(org)).find((u) => u.email.toLowerCase() === people[3]!.mail!.toLowerCase())?.title, 'Director');
  });

  test('429 with a short Retry-After is waited out within the sync; a long one puts the job back with the wait', async () => {
    const people = [graphUser({ displayName: 'One' }), graphUser({ displayName: 'Two' }), graphUser({ displayName: 'Three' })];
    fake.throttle = { page: 1, times: 1, retryAfterS: 1 };
    const { org, syncJob } = await connected(people);
    const job = await finished(org, syncJob);
    assert.equal(job.state, 'succeeded', job.error);
    const page2 = fake.requests.filter((r) => r.path === '/v1.0/users' && r.query.get('$skiptoken') === '2');
    assert.ok(page2.length >= 2, 'page 2 asked again after the 429');
    assert.ok(page2.at(-1)!.at - page2.at(-2)!.at >= 900, 'not before Retry-After');
    assert.equal((await usersOf(org)).length, 4);

    fake.throttle = { page: 0, times: 1, retryAfterS: 3600 };
    const other = await connected([graphUser({ displayName: 'Later' })]);
    const back = await until(
      () => jobOf(other.org, other.syncJob),
      (j) => j.state === 'queued' && j.error !== null,
      'the job back in the queue',
    );
    assert.match(back.error, /throttling/);
    const runAfter = (await server.deps.database.db.selectFrom('jobs').select('run_after').where('id', '=', other.syncJob).executeTakeFirstOrThrow()).run_after;
    assert.ok(runAfter.getTime() - Date.now() > 3000_000, `retried after Retry-After (${runAfter.toISOString()})`);
    fake.throttle = undefined;
  });

  test('a wrong secret: the job fails with what Microsoft said, the connection shows it, and a dry run says it too', async () => {
    const { org, syncJob, tenantId, clientId } = await connected([graphUser({ displayName: 'Nobody Synced' })], 'a-wrong-secret');
    const job = await finished(org, syncJob);
    assert.equal(job.state, 'failed');
    assert.match(job.error, /refused the app's credentials.*AADSTS7000215/);
    const status = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key });
    assert.match(status.body.lastError, /AADSTS7000215/);
    assert.equal(status.body.lastSyncAt, null);
    assert.equal((await usersOf(org)).length, 1, 'nothing synced');
    const dry = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/microsoft/sync?dryRun=true`, { key: org.key });
    assert.equal(dry.status, 400);
    assert.match(dry.body.error.message, /could not be read.*AADSTS7000215/);

    // The admin puts the right secret in while the scheduler's sync is due: the change queues a
    // sync itself, so the scheduler's moves an interval away rather than queuing a second one.
    await server.deps.database.db
      .updateTable('microsoft_integrations')
      .set({ next_sync_at: new Date(0) })
      .where('org_id', '=', org.orgId)
      .execute();
    const fixed = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/microsoft`, {
      key: org.key,
      body: { tenantId, clientId, clientSecret: 'the-right-secret' },
    });
    assert.equal(fixed.status, 200, fixed.text);
    assert.ok(Date.parse(fixed.body.nextSyncAt) > Date.now() + 3500_000, `next sync at ${fixed.body.nextSyncAt}`);
  });

  test('disconnecting: 204, then 404; synced users stay; an unknown connection is 404 everywhere', async () => {
    const { org, syncJob } = await connected([graphUser({ displayName: 'Stays After' })]);
    await finished(org, syncJob);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key })).status, 204);
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/sync'],
      ['POST', '/sync?dryRun=true'],
    ] as const) {
      const res = await server.request(method, `/v1/orgs/${org.orgId}/integrations/microsoft${path}`, { key: org.key });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    assert.equal((await usersOf(org)).length, 2);
  });

  test('bad input: 400 naming the field, nothing stored', async () => {
    const org = await createOrg(server);
    const good = { tenantId: 'contoso.onmicrosoft.com', clientId: randomUUID(), clientSecret: 's' };
    for (const [field, body] of [
      ['tenantId', { ...good, tenantId: 'has spaces/and slashes' }],
      ['clientId', { ...good, clientId: 'not-a-guid' }],
      ['clientSecret', { ...good, clientSecret: '' }],
      ['extra', { ...good, extra: 1 }],
    ] as const) {
      const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key, body });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST', field);
      assert.equal(res.body.error.details?.field, `body.${field}`, `${field}: ${res.text}`);
    }
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key })).status, 404);
  });
});

describe('the Entra sync runs on its schedule', () => {
  test('every MICROSOFT_SYNC_INTERVAL_S, a sync is queued for each connected org', async () => {
    const fake = await startFakeMicrosoft();
    const server = await startServer({ MICROSOFT_LOGIN_URL: fake.url, MICROSOFT_GRAPH_URL: fake.url, MICROSOFT_SYNC_INTERVAL_S: '1', JOBS_POLL_MS: '100' });
    try {
      const org = await createOrg(server);
      const tenantId = randomUUID();
      const clientId = randomUUID();
      fake.tenants.set(tenantId, { clientId, clientSecret: 'x', users: [graphUser({ displayName: 'Scheduled' })] });
      const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/microsoft`, {
        key: org.key,
        body: { tenantId, clientId, clientSecret: 'x' },
      });
      assert.equal(res.status, 200);
      const db = server.deps.database.db;
      await until(
        async () => (await db.selectFrom('directory_runs').select('id').where('org_id', '=', org.orgId).execute()).length,
        (n) => n >= 3,
        'three syncs: the first, and two the scheduler queued',
      );
    } finally {
      await server.close();
      await fake.close();
    }
  });
});
