// Answers that show a secret once carry `Cache-Control: private, no-store` (DECISIONS wave 3,
// "Secrets stay out of logs"), so no cache keeps them: an API key, a SCIM token, a webhook
// endpoint's signing secret and the gateway's SMTP password, when made and when rotated. A hostile review found none had it.
// A second found the same of the Outlook add-in key and of invitation links (each sets the
// password of the account it names), in the answers that carry them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { staffToken } from './helpers/payments.ts';

describe('secrets answered once', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true' });
  });
  after(() => server.close());

  test('an API key, a SCIM token, a webhook secret and a gateway password are answered private, no-store', async () => {
    const org = await createOrg(server);
    const base = `/v1/orgs/${org.orgId}`;
    const endpoint = await server.request('POST', `${base}/webhook-endpoints`, {
      key: org.key,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['user.created'] },
    });
    const answers = {
      apiKey: await server.request('POST', `${base}/api-keys`, { key: org.key, body: { name: 'ci' } }),
      scimToken: await server.request('POST', `${base}/integrations/scim`, { key: org.key }),
      webhookSecret: endpoint,
      rotatedSecret: await server.request('POST', `${base}/webhook-endpoints/${endpoint.body.endpointId}/rotate-secret`, { key: org.key }),
      gatewayPassword: await server.request('PUT', `${base}/integrations/gateway`, {
        key: org.key,
        body: { nextHop: { host: '127.0.0.1', port: 2525, secure: false }, allowedNetworks: [], stampInternal: false },
      }),
      rotatedGatewayPassword: await server.request('POST', `${base}/integrations/gateway/rotate-password`, { key: org.key }),
    };
    for (const [what, res] of Object.entries(answers)) {
      assert.ok(res.status === 200 || res.status === 201, `${what}: ${res.status} ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', what);
    }
    // A read of the same endpoint shows no secret, and needs no such header.
    const read = await server.request('GET', `${base}/webhook-endpoints/${endpoint.body.endpointId}`, { key: org.key });
    assert.equal(read.body.secret, undefined);
    assert.ok(answers.gatewayPassword.body.password && answers.rotatedGatewayPassword.body.password, 'both answer a password');
    // A gateway saved again (it has its password already) answers none, and no such header.
    const again = await server.request('PUT', `${base}/integrations/gateway`, {
      key: org.key,
      body: { nextHop: { host: '127.0.0.1', port: 2526, secure: false }, allowedNetworks: [], stampInternal: false },
    });
    assert.deepEqual([again.status, again.body.password, again.headers.get('cache-control')], [200, undefined, null]);
  });

  test('the Outlook add-in key (read, rotated, in the manifest) is answered private, no-store', async () => {
    const org = await createOrg(server);
    const base = `/v1/orgs/${org.orgId}/integrations/outlook`;
    const rotated = await server.request('POST', `${base}/rotate-key`, { key: org.key });
    const read = await server.request('GET', base, { key: org.key });
    const manifest = await server.request('GET', `${base}/manifest.xml`, { key: org.key });
    for (const [what, res] of Object.entries({ rotated, read, manifest })) {
      assert.equal(res.status, 200, `${what}: ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', what);
    }
    assert.ok(rotated.body.addinKey && read.body.addinKey === rotated.body.addinKey, 'both answer the key');
    assert.ok(manifest.text.includes(rotated.body.addinKey), 'the manifest carries it');
  });

  test("an answer carrying an invitation link (it sets the account's password) is private, no-store; one without a link is not", async () => {
    const org = await createOrg(server);
    const base = `/v1/orgs/${org.orgId}`;
    const created = await server.request('POST', `${base}/users`, { key: org.key, body: { email: `invited-${Date.now()}@example.test`, name: 'Ivy' } });
    const userPath = `${base}/users/${created.body.userId}`;
    const answers = {
      create: created,
      read: await server.request('GET', userPath, { key: org.key }),
      list: await server.request('GET', `${base}/users`, { key: org.key }),
      update: await server.request('PATCH', userPath, { key: org.key, body: { version: created.body.version, title: 'Designer' } }),
      resend: await server.request('POST', `${userPath}/invitation`, { key: org.key }),
    };
    for (const [what, res] of Object.entries(answers)) {
      assert.ok(res.status === 200 || res.status === 201, `${what}: ${res.status} ${res.text}`);
      assert.match(res.text, /"invitationUrl":"[^"]+\/invitation\//, `${what} carries the link`);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', what);
    }
    // Without a link (an active user; a member, who is never shown one), no such header.
    const active = await createUser(server, org, { temporaryPassword: 'a long temporary password' });
    const plain = await server.request('GET', `${base}/users/${active.userId}`, { key: org.key });
    assert.deepEqual([plain.status, plain.body.invitationUrl, plain.headers.get('cache-control')], [200, undefined, null]);
    const member = await userWithPassword(server, org, 'member');
    const app = await oidcClient(server.deps.config.authUrl, `app-client-${server.deps.config.stage}`, server.deps.config.appUrl);
    const token = (await signIn(app, { username: member.email, password: member.password })).tokens.id_token as string;
    const asMember = await server.request('GET', `${base}/users`, { token });
    assert.equal(asMember.status, 200, asMember.text);
    assert.doesNotMatch(asMember.text, /invitationUrl/);
    assert.equal(asMember.headers.get('cache-control'), null);
  });

  test("staff answers that embed an org's first API key or an invitation link are private, no-store", async () => {
    const token = await staffToken(server);
    const org = await server.request('POST', '/v1/admin/orgs', { token, body: { name: 'Cached Co', ownerEmail: `owner-${Date.now()}@example.test` } });
    assert.equal(org.status, 201, org.text);
    assert.ok(org.body.apiKey.key && org.body.ownerInvitationUrl);
    assert.equal(org.headers.get('cache-control'), 'private, no-store');
    const staff = await server.request('POST', '/v1/admin/staff', { token, body: { email: `staff-${Date.now()}@operator.test` } });
    assert.equal(staff.status, 201, staff.text);
    assert.ok(staff.body.invitationUrl);
    assert.equal(staff.headers.get('cache-control'), 'private, no-store');
  });
});
