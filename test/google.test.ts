// Google Workspace (docs/google-workspace.md): connecting, the connection test, directory sync and signature push,
// against the fake of Google's endpoints (test/helpers/fake-google.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, createTemplate, lapseOrg, type TestOrg } from './helpers/fixtures.ts';
import { assertSecurityCases } from './helpers/security.ts';
import { fakeGoogleEnv, GMAIL_SCOPE, type FakeGoogle } from './helpers/fake-google.ts';
import { connect, googleSuite, jobsSettled, waitForJob, workspace } from './helpers/google-setup.ts';
import { waitFor } from './helpers/wait.ts';
import { NEEDS_POSTGRES, ON_POSTGRES } from './helpers/pg.ts';

describe('Google Workspace', () => {
  let fake: FakeGoogle;
  let server: TestServer;
  googleSuite((google) => ({ fake, server } = google));
  const base = (org: TestOrg) => `/v1/orgs/${org.orgId}/integrations/google`;
  const deployments = async (org: TestOrg, query = '') => {
    const items: { userId: string; email: string; state: string; reason: string | null; error: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { items: typeof items; nextCursor: string | null } } = await server.request(
        'GET',
        `/v1/orgs/${org.orgId}/deployments?limit=200${query}${cursor ? `&cursor=${cursor}` : ''}`,
        { key: org.key },
      );
      assert.equal(res.status, 200);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    return items;
  };
  const patchesTo = (domain: string) => fake.patches.filter((p) => p.email.endsWith(`@${domain}`));

  test('connect: the key is stored encrypted and never returned; GET answers the connection and its status', async () => {
    const org = await createOrg(server);
    const ws = workspace(fake, 2);
    const body = await connect(server, org, ws, { syncUsers: false, pushSignatures: false });
    assert.equal(body.clientEmail, ws.account.clientEmail);
    assert.equal(body.clientId, ws.account.clientId);
    assert.equal(body.adminEmail, ws.admin.primaryEmail);
    assert.deepEqual(body.scopes, ['https://www.googleapis.com/auth/admin.directory.user.readonly', GMAIL_SCOPE]);
    assert.deepEqual(body.counts, { pending: 0, deployed: 0, failed: 0, skipped: 0 });
    const got = await server.request('GET', base(org), { key: org.key });
    assert.equal(got.status, 200);
    assert.ok(!got.text.includes('PRIVATE KEY') && !JSON.stringify(body).includes('PRIVATE KEY'));
    const row = await server.deps.database.db.selectFrom('google_integrations').selectAll().where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    assert.match(row.sealed_private_key, /^v1\./);
    assert.ok(!row.sealed_private_key.includes('PRIVATE'));
    // Changing the settings keeps the key; no key on a first connection is a 400.
    const changed = await server.request('PUT', base(org), {
      key: org.key,
      body: { adminEmail: ws.admin.primaryEmail, syncUsers: true, pushSignatures: false },
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.syncUsers, true);
    const other = await createOrg(server);
    const missing = await server.request('PUT', base(other), { key: other.key, body: { adminEmail: ws.admin.primaryEmail } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.details.field, 'body.serviceAccountKey');
    assert.equal((await server.request('GET', base(other), { key: other.key })).status, 404);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });

  test('a key that is not a service account key is refused with a clear 400 and nothing stored', async () => {
    const org = await createOrg(server);
    const ws = workspace(fake, 1);
    const cases: [unknown, RegExp][] = [
      [{ web: { client_id: 'x.apps.googleusercontent.com', client_secret: 's' } }, /OAuth client's file, not a service account key/],
      [{ type: 'authorized_user', client_id: 'x', client_secret: 'y', refresh_token: 'z' }, /not a service account key.*"authorized_user"/],
      [{ ...ws.account.keyFile, private_key: 'not a key' }, /private_key/],
      [{ ...ws.account.keyFile, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }, /not a readable RSA key/],
      [{ ...ws.account.keyFile, client_email: 'nobody' }, /client_email/],
    ];
    for (const [key, message] of cases) {
      const res = await server.request('PUT', base(org), { key: org.key, body: { serviceAccountKey: key, adminEmail: ws.admin.primaryEmail } });
      assert.equal(res.status, 400, JSON.stringify(key));
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.match(res.body.error.message, message);
      assert.equal(res.body.error.details.field, 'body.serviceAccountKey');
    }
    for (const bad of [
      { serviceAccountKey: 'a string', adminEmail: ws.admin.primaryEmail },
      { serviceAccountKey: ws.account.keyFile, adminEmail: 'not an address' },
      { serviceAccountKey: ws.account.keyFile },
    ]) {
      assert.equal((await server.request('PUT', base(org), { key: org.key, body: bad })).status, 400);
    }
    assert.equal((await server.request('GET', base(org), { key: org.key })).status, 404, 'nothing was stored');
  });

  test('without SECRETS_KEY the service refuses to store the key, saying how to make one', async () => {
    const plain = await startServer({ ...fakeGoogleEnv(fake), SECRETS_KEY: '' });
    try {
      const org = await createOrg(plain);
      const ws = workspace(fake, 1);
      const res = await plain.request('PUT', `/v1/orgs/${org.orgId}/integrations/google`, {
        key: org.key,
        body: { serviceAccountKey: ws.account.keyFile, adminEmail: ws.admin.primaryEmail },
      });
      assert.equal(res.status, 503);
      assert.match(res.body.error.message, /SECRETS_KEY/);
      assert.match(res.body.error.message, /openssl rand -base64 32/);
      assert.equal((await plain.request('GET', `/v1/orgs/${org.orgId}/integrations/google`, { key: org.key })).status, 404);
    } finally {
      await plain.close();
    }
  });

  test("test connection reports Google's answer in plain words", async () => {
    const org = await createOrg(server);
    const good = workspace(fake, 3);
    await connect(server, org, good, { syncUsers: false, pushSignatures: false });
    const ok = await server.request('POST', `${base(org)}/test`, { key: org.key });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.ok, true, ok.text);
    assert.deepEqual(
      ok.body.steps.map((s: { step: string }) => s.step),
      ['token', 'directory', 'gmail'],
    );
    assert.match(ok.body.steps[1].message, /Read 4 users/);

    // Delegation not granted (or not yet active) for the directory scope.
    const noDelegation = workspace(fake, 1, { delegate: [GMAIL_SCOPE] });
    await connect(server, org, noDelegation, { syncUsers: false, pushSignatures: false });
    const refused = (await server.request('POST', `${base(org)}/test`, { key: org.key })).body;
    assert.equal(refused.ok, false);
    assert.equal(refused.steps[0].step, 'token');
    assert.match(refused.steps[0].message, /domain-wide delegation is not granted.*client ID \d+.*admin\.directory\.user\.readonly.*24 hours/);
    assert.match(refused.steps[0].message, /unauthorized_client|Client is unauthorized/);

    // The admin address is not an admin; Gmail not enabled for the address.
    const notAdmin = workspace(fake, 1);
    notAdmin.admin.isAdmin = false;
    notAdmin.admin.gmail = false;
    await connect(server, org, notAdmin, { syncUsers: false, pushSignatures: false });
    const steps = (await server.request('POST', `${base(org)}/test`, { key: org.key })).body.steps;
    assert.equal(steps[0].ok, true);
    assert.equal(steps[1].ok, false);
    assert.match(steps[1].message, /may not read the directory/);
    assert.equal(steps[2].ok, false);
    assert.match(steps[2].message, /Gmail is not enabled for admin@/);
    // A failed test changes nothing and is no error of the route.
    assert.equal((await server.request('GET', base(org), { key: org.key })).body.lastError, null);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });

  test('first sync of a few hundred users over several pages, then every signature pushed once; a second push sends nothing', async () => {
    fake.pageSize = 100;
    const org = await createOrg(server, { seats: 400 });
    await createTemplate(server, org, { html: '<p>{{ user.name }}, {{ user.title }} ({{ user.department }}) {{ user.phone }}</p>' });
    const ws = workspace(fake, 299);
    const before = fake.patches.length;
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org, '&state=deployed')).length === 300, 'every user deployed', 90_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), []);
    fake.pageSize = 500;
    const users = (await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key })).body;
    assert.equal(users.items.length, 200);
    const u1 = (await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200&cursor=${users.nextCursor}`, { key: org.key })).body.items
      .concat(users.items)
      .find((u: { email: string }) => u.email === `user0001@${ws.domain}`);
    assert.deepEqual([u1.name, u1.title, u1.department, u1.phone, u1.role], ['User 1', 'Engineer', 'Sales', '+1 555 0001', 'member']);
    const sent = patchesTo(ws.domain);
    assert.equal(sent.length, 300, 'each user (admin included) PATCHed once');
    assert.equal(fake.patches.length - before, 300);
    assert.equal(fake.users.get(`user0001@${ws.domain}`)!.signature, '<p>User 1, Engineer (Sales) +1 555 0001</p>');
    // The owner's address is not in the Workspace: skipped, with the reason.
    const owner = (await deployments(org, '&state=skipped'))[0];
    assert.equal(owner?.reason, 'not_in_directory');
    const status = (await server.request('GET', base(org), { key: org.key })).body;
    assert.equal(status.counts.deployed, 300);
    assert.ok(status.lastSyncAt && status.lastPushAt);
    assert.equal(status.lastSync.created, 300);

    const push = await server.request('POST', `${base(org)}/push`, { key: org.key });
    assert.equal(push.status, 202);
    assert.equal(push.body.kind, 'google.push');
    const job = await waitForJob(server, org, push.body.jobId);
    assert.equal(job.state, 'succeeded');
    assert.deepEqual(job.progress, { done: 301, total: 301 });
    assert.equal(patchesTo(ws.domain).length, 300, 'nothing changed, nothing sent');
  });

  test('a change in the directory reaches the user and their signature; a suspended user is suspended and skipped by pushes; a dry run changes nothing', async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org, { html: '<p>{{ user.name }} — {{ user.title }}</p>' });
    const ws = workspace(fake, 5);
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org, '&state=deployed')).length === 6, 'first push');
    const user2 = ws.users[1]!;
    const user3 = ws.users[2]!;
    user2.organizations = [{ title: 'Head of Sales', department: 'Sales', primary: true }];
    user3.suspended = true;
    const dry = await server.request('POST', `${base(org)}/sync?dryRun=true`, { key: org.key });
    assert.equal(dry.status, 200);
    assert.deepEqual([dry.body.created, dry.body.updated, dry.body.deleted, dry.body.skipped], [0, 2, 0, 0]);
    const listed = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key });
    assert.notEqual(listed.body.items.find((u: { email: string }) => u.email === user3.primaryEmail).status, 'suspended', 'the dry run suspended nobody');

    const sync = await server.request('POST', `${base(org)}/sync`, { key: org.key });
    assert.equal(sync.status, 202);
    assert.equal((await waitForJob(server, org, sync.body.jobId)).state, 'succeeded');
    const after = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key });
    assert.equal(after.body.items.find((u: { email: string }) => u.email === user2.primaryEmail).title, 'Head of Sales');
    assert.equal(after.body.items.find((u: { email: string }) => u.email === user3.primaryEmail).status, 'suspended', 'suspended in Google → suspended');
    // The changed user's signature follows, pushed by the sync; the suspended one is skipped.
    await waitFor(() => fake.users.get(user2.primaryEmail)!.signature === '<p>User 2 — Head of Sales</p>', 'the new title in Gmail');
    await waitFor(
      async () => (await deployments(org, '&state=skipped')).some((d) => d.email === user3.primaryEmail && d.reason === 'suspended'),
      'the suspended user skipped',
    );
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });

  test('a template edit re-pushes only the users whose signature it changed, within the bound, without anyone asking', async () => {
    const org = await createOrg(server, { seats: 50 });
    const template = await createTemplate(server, org, {
      html: '<p>{{ user.name }}</p>{% if user.department == "Sales" %}<p>Sales line v1</p>{% endif %}',
    });
    const ws = workspace(fake, 10);
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org, '&state=deployed')).length === 11, 'first push');
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    const before = patchesTo(ws.domain).length;
    const edited = await server.request('PATCH', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, {
      key: org.key,
      body: { version: template.version, html: '<p>{{ user.name }}</p>{% if user.department == "Sales" %}<p>Sales line v2</p>{% endif %}' },
    });
    assert.equal(edited.status, 200, edited.text);
    const sales = ws.users.filter((u) => u.organizations?.[0]?.department === 'Sales');
    assert.equal(sales.length, 5, 'half the workspace is in Sales: the wait below is not over an empty list');
    await waitFor(() => sales.every((u) => u.signature?.includes('v2')), 'the Sales users re-pushed', 60_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    const again = patchesTo(ws.domain).slice(before);
    assert.deepEqual(again.map((p) => p.email).sort(), sales.map((u) => u.primaryEmail).sort(), 'only the affected users');

    // A change to one user re-pushes that user.
    const me = (await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key })).body.items.find(
      (u: { email: string }) => u.email === ws.users[1]!.primaryEmail,
    );
    const renamed = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${me.userId}`, {
      key: org.key,
      body: { version: me.version, name: 'Grace Hopper' },
    });
    assert.equal(renamed.status, 200);
    await waitFor(() => fake.users.get(me.email)!.signature?.startsWith('<p>Grace Hopper</p>'), 'the new name in Gmail', 60_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    assert.equal(patchesTo(ws.domain).length, before + sales.length + 1);
  });

  test('an org change re-pushes every user whose signature shows it, without anyone asking (a change to a template, a user or the org re-pushes)', async () => {
    const org = await createOrg(server, { seats: 50, name: 'Old Name Ltd' });
    await createTemplate(server, org, { html: '<p>{{ user.name }}</p><p>{{ org.name }}</p>' });
    const ws = workspace(fake, 3);
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org, '&state=deployed')).length === 4, 'first push');
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    const everyone = [ws.admin, ...ws.users];
    assert.ok(
      everyone.every((u) => u.signature?.includes('Old Name Ltd')),
      'the first push showed the old name',
    );
    const before = patchesTo(ws.domain).length;

    const current = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
    const renamed = await server.request('PATCH', `/v1/orgs/${org.orgId}`, { key: org.key, body: { version: current.body.version, name: 'New Name Ltd' } });
    assert.equal(renamed.status, 200, renamed.text);
    await waitFor(() => everyone.every((u) => u.signature?.includes('New Name Ltd')), 'the new org name in every Gmail signature', 60_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    assert.deepEqual(
      patchesTo(ws.domain)
        .slice(before)
        .map((p) => p.email)
        .sort(),
      everyone.map((u) => u.primaryEmail).sort(),
      'each user pushed once more',
    );
  });

  test('too long, Gmail not enabled, and past the grace period: each user gets the reason and nothing is sent', async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org, { html: `<p>{{ user.name }}</p>{% if user.department == "Long" %}<p>${'x'.repeat(10_001)}</p>{% endif %}` });
    const ws = workspace(fake, 3, { user: (n) => (n === 1 ? { organizations: [{ department: 'Long', primary: true }] } : n === 2 ? { gmail: false } : {}) });
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org)).length === 5, 'every user handled');
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    const byEmail = Object.fromEntries((await deployments(org)).map((d) => [d.email, d]));
    assert.deepEqual([byEmail[ws.users[0]!.primaryEmail]!.state, byEmail[ws.users[0]!.primaryEmail]!.reason], ['skipped', 'too_long']);
    assert.equal(byEmail[ws.users[1]!.primaryEmail]!.state, 'failed');
    assert.match(byEmail[ws.users[1]!.primaryEmail]!.error!, /Gmail is not enabled/);
    assert.equal(byEmail[ws.users[2]!.primaryEmail]!.state, 'deployed');
    assert.ok(!patchesTo(ws.domain).some((p) => p.email === ws.users[0]!.primaryEmail || p.email === ws.users[1]!.primaryEmail));

    // Past the grace period: the push route answers 402, and a queued push skips every user.
    await lapseOrg(server, org.orgId);
    const refused = await server.request('POST', `${base(org)}/push`, { key: org.key });
    assert.equal(refused.status, 402);
    const sent = patchesTo(ws.domain).length;
    // A push the service queued itself may hold the org's lease: this one runs once it is free.
    await waitFor(async () => (await server.deps.googleRuns.push(org.orgId, undefined)) !== null, 'a push of our own');
    const skipped = await deployments(org, '&state=skipped');
    assert.ok(skipped.filter((d) => d.reason === 'payment_required').length >= 3);
    assert.equal(patchesTo(ws.domain).length, sent);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });

  test('disconnect forgets the key and what was deployed', async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org);
    const ws = workspace(fake, 2);
    await connect(server, org, ws);
    await waitFor(async () => (await deployments(org, '&state=deployed')).length === 3, 'first push');
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
    assert.equal((await server.request('DELETE', base(org), { key: org.key })).status, 204);
    assert.equal((await server.request('GET', base(org), { key: org.key })).status, 404);
    assert.equal((await deployments(org, '&target=gmail')).length, 0);
    assert.equal((await server.request('DELETE', base(org), { key: org.key })).status, 404);
    const users = await server.request('GET', `/v1/orgs/${org.orgId}/users`, { key: org.key });
    assert.equal(users.body.items.length, 4, 'the synced users stay (the owner, the admin and two users)');
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=integration.google.disconnect`, { key: org.key });
    assert.equal(audit.body.items.length, 1);
  });

  test('a settings change keeps the stored key as it is then, even one sealed again while the change ran (PostgreSQL)', {
    skip: !ON_POSTGRES && NEEDS_POSTGRES,
  }, async () => {
    const org = await createOrg(server, { seats: 50 });
    const ws = workspace(fake, 1);
    await connect(server, org, ws, { syncUsers: false, pushSignatures: false });
    const db = server.deps.database.db;
    const stored = () =>
      db.selectFrom('google_integrations').select(['sealed_private_key', 'admin_email']).where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    const resealed = server.deps.secrets.seal('what `secrets rekey` wrote meanwhile', `google:${org.orgId}`);
    // The row is held, as `sigsvc secrets rekey` holds it while it seals again; the settings change
    // reads the connection, then waits on the row; the key is replaced and the hold let go.
    let change: ReturnType<typeof server.request> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('google_integrations').select('org_id').where('org_id', '=', org.orgId).forUpdate().execute();
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      const holder = rows[0]!.pid;
      change = server.request('PUT', base(org), { key: org.key, body: { adminEmail: `other-admin@${ws.domain}`, syncUsers: false, pushSignatures: false } });
      // The change is waiting on the held row: a session of this database is blocked by ours.
      await waitFor(async () => {
        const blocked = await sql<{
          pid: number;
        }>`select pid from pg_stat_activity where datname = current_database() and query ilike '%update%google_integrations%' and ${holder} = any(pg_blocking_pids(pid))`.execute(
          db,
        );
        return blocked.rows.length > 0;
      }, 'the settings change to wait on the held row');
      await trx.updateTable('google_integrations').set({ sealed_private_key: resealed }).where('org_id', '=', org.orgId).execute();
    });
    const res = await change!;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await stored(), { sealed_private_key: resealed, admin_email: `other-admin@${ws.domain}` }, 'the key written meanwhile is kept');
  });

  test('metrics: requests to Google and pushes by outcome', async () => {
    const res = await server.request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.text, /google_api_requests_total\{api="gmail",outcome="ok"\} [1-9]/);
    assert.match(res.text, /google_api_requests_total\{api="token",outcome="ok"\} [1-9]/);
    assert.match(res.text, /signature_pushes_total\{outcome="deployed"\} [1-9]/);
    assert.match(res.text, /jobs_total\{kind="google.push",outcome="succeeded"\} [1-9]/);
    assert.match(res.text, /jobs_total\{kind="google.sync",outcome="succeeded"\} [1-9]/);
  });

  test('security: refused credentials 401 and another org 403 on every Google route', async () => {
    const org = await createOrg(server);
    const other = await createOrg(server);
    const ws = workspace(fake, 1);
    const key = ws.account.keyFile;
    await assertSecurityCases(
      server,
      [
        { method: 'GET', route: '/v1/orgs/{orgId}/integrations/google', minRole: 'admin' },
        { method: 'DELETE', route: '/v1/orgs/{orgId}/integrations/google', minRole: 'admin' },
        { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/test', minRole: 'admin' },
        { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/sync', minRole: 'admin' },
        { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/push', minRole: 'admin' },
      ],
      org,
      other,
    );
    // PUT separately: its body is a valid connection.
    const put = await server.request('PUT', base(org), { key: other.key, body: { serviceAccountKey: key, adminEmail: ws.admin.primaryEmail } });
    assert.equal(put.status, 403);
    assert.equal((await server.request('PUT', base(org), { body: { serviceAccountKey: key, adminEmail: ws.admin.primaryEmail } })).status, 401);
    // Another org's connection is not this org's.
    await connect(server, other, ws, { syncUsers: false, pushSignatures: false });
    assert.equal((await server.request('GET', base(org), { key: org.key })).status, 404);
    assert.equal((await server.request('POST', `${base(org)}/push`, { key: org.key })).status, 404);
  });
});
