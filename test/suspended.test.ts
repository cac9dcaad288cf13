// The user status `suspended` (src/users/status.ts) as an admin sets it with PATCH …/users/{userId}:
// no sign-in (sessions, refresh and ID tokens end), no seat, no signature at the add-in; shown in
// the user resource and the list's `status` filter; restored with `active`, 402 past the seat cap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';

describe('suspended users', () => {
  let server: TestServer;
  let app: OidcClient;
  before(async () => {
    server = await startServer({ STAGE: 'qa' });
    const { authUrl, appUrl } = server.deps.config;
    app = await oidcClient(authUrl, 'app-client-qa', appUrl);
  });
  after(() => server.close());

  const patch = async (org: TestOrg, userId: string, body: Record<string, unknown>, key = org.key) => {
    const current = await server.request('GET', `/v1/orgs/${org.orgId}/users/${userId}`, { key: org.key });
    return server.request('PATCH', `/v1/orgs/${org.orgId}/users/${userId}`, { key, body: { version: current.body.version, ...body } });
  };

  test('a suspended user cannot sign in, and their ID token and refresh token stop working; restoring lets them in again', async () => {
    const org = await createOrg(server);
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 200);

    const suspended = await patch(org, member.userId, { status: 'suspended' });
    assert.equal(suspended.status, 200, suspended.text);
    assert.equal(suspended.body.status, 'suspended');
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 401);
    await assert.rejects(client.refreshTokenGrant(app.config, tokens.refresh_token as string), (err: { error?: string }) => err.error === 'invalid_grant');
    await assert.rejects(signIn(app, { username: member.email, password: member.password }), /sign-in did not finish/);

    const restored = await patch(org, member.userId, { status: 'active' });
    assert.equal(restored.body.status, 'active', 'a user with a password is active again');
    const again = await signIn(app, { username: member.email, password: member.password });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: again.tokens.id_token as string })).status, 200);
  });

  test('a suspended user takes no seat; restoring past the cap is 402 and changes nothing', async () => {
    const org = await createOrg(server, { seats: 2 });
    const u1 = await createUser(server, org);
    assert.equal((await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: `full-${Date.now()}@x.test` } })).status, 402);
    assert.equal((await patch(org, u1.userId, { status: 'suspended' })).status, 200);
    const u2 = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: `freed-${Date.now()}@x.test` } });
    assert.equal(u2.status, 201, 'the suspended user freed their seat');
    const refused = await patch(org, u1.userId, { status: 'active' });
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.body.error.code, 'PAYMENT_REQUIRED');
    const still = await server.request('GET', `/v1/orgs/${org.orgId}/users/${u1.userId}`, { key: org.key });
    assert.equal(still.body.status, 'suspended');
    // Invited users come back invited.
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${u2.body.userId}`, { key: org.key })).status, 204);
    assert.equal((await patch(org, u1.userId, { status: 'active' })).body.status, 'invited');
  });

  test('the list filter and the resource show the status; only admins set it, never on the owner or themselves', async () => {
    const org = await createOrg(server);
    const a = await createUser(server, org);
    await createUser(server, org);
    await patch(org, a.userId, { status: 'suspended' });
    const listed = await server.request('GET', `/v1/orgs/${org.orgId}/users?status=suspended`, { key: org.key });
    assert.deepEqual(
      listed.body.items.map((u: { userId: string }) => u.userId),
      [a.userId],
    );
    const active = await server.request('GET', `/v1/orgs/${org.orgId}/users?status=invited`, { key: org.key });
    assert.ok(!active.body.items.some((u: { userId: string }) => u.userId === a.userId));
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users?status=gone`, { key: org.key })).status, 400);

    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const self = await server.request('GET', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key });
    const byMember = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${member.userId}`, {
      token: tokens.id_token as string,
      body: { version: self.body.version, status: 'suspended' },
    });
    assert.equal(byMember.status, 403, 'a member may not suspend (even themselves)');
    const owner = await patch(org, org.ownerUserId, { status: 'suspended' });
    assert.equal(owner.status, 403, 'the owner is never suspended');
    assert.equal(owner.body.error.details?.field, 'status');
  });

  test('a suspended user gets no signature at the add-in: 404, as an unknown sender', async () => {
    const org = await createOrg(server);
    await createTemplate(server, org, { html: '<p>{{ user.name }}</p>' });
    const user = await createUser(server, org, { name: 'Sam' });
    // The org's add-in key: made by an explicit action (a GET of the integration makes none).
    const outlook = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key });
    assert.equal(outlook.status, 200, outlook.text);
    const fetchSignature = () =>
      server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(user.email)}&compose=new`, { headers: { 'x-addin-key': outlook.body.addinKey } });
    assert.equal((await fetchSignature()).status, 200);
    await patch(org, user.userId, { status: 'suspended' });
    const refused = await fetchSignature();
    assert.equal(refused.status, 404);
    const unknown = await server.request('GET', `/v1/addin/signature?email=nobody%40x.test&compose=new`, { headers: { 'x-addin-key': outlook.body.addinKey } });
    assert.deepEqual([refused.body.error.code, refused.body.error.message], [unknown.body.error.code, unknown.body.error.message]);
  });
});
