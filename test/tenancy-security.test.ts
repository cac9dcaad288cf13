import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, lapseOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { assertBillingGate, assertRoleCases, assertSecurityCases, billingGated, fillPath, openApiOperations, type RouteCase } from './helpers/security.ts';

// Every org route. The catalog test below fails when a route exists that this table lacks.
export const ORG_ROUTES: RouteCase[] = [
  { method: 'GET', route: '/v1/orgs/{orgId}', minRole: 'member' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}', body: { version: 1, name: 'x' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/users', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users', body: { email: 'sec@example.test' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/users/{userId}', minRole: 'member' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/users/{userId}', body: { version: 1, name: 'x' }, minRole: 'member' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/users/{userId}', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp/verify', body: { code: '123456' }, minRole: 'member' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp', minRole: 'member' },
  { method: 'GET', route: '/v1/orgs/{orgId}/templates', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/templates', body: { name: 'x', html: '<p>x</p>' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/templates/{templateId}', minRole: 'member' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/templates/{templateId}', body: { version: 1, name: 'x' }, minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/templates/{templateId}', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/api-keys', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/api-keys', body: { name: 'x' }, minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/api-keys/{keyId}', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/audit', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/plan-status', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/render/{userId}', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/templates/preview', body: { userId: '00000000-0000-4000-8000-000000000000', html: '<p>x</p>' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/opens', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/outlook', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/outlook/rotate-key', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/outlook/manifest.xml', minRole: 'admin' },
  {
    method: 'PUT',
    route: '/v1/orgs/{orgId}/integrations/microsoft',
    body: { tenantId: 'contoso.onmicrosoft.com', clientId: '00000000-0000-4000-8000-000000000000', clientSecret: 's' },
    minRole: 'admin',
  },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/microsoft', minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/integrations/microsoft', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/microsoft/sync', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/jobs/{jobId}', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/invitation', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/templates/starters', minRole: 'member' },
  {
    method: 'POST',
    route: '/v1/orgs/{orgId}/templates/compile',
    body: {
      design: {
        version: 1,
        layout: 'stacked',
        style: { fontFamily: 'arial', fontSize: 13, textColor: '#333333', accentColor: '#2450d4', linkColor: '#2450d4' },
        blocks: [{ type: 'divider' }],
      },
    },
    minRole: 'admin',
  },
  { method: 'GET', route: '/v1/orgs/{orgId}/fields', minRole: 'member' },
  { method: 'PUT', route: '/v1/orgs/{orgId}/fields', body: [], minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/rules', minRole: 'admin' },
  { method: 'PUT', route: '/v1/orgs/{orgId}/rules', body: [], minRole: 'admin' },
  {
    method: 'POST',
    route: '/v1/orgs/{orgId}/campaigns',
    body: {
      name: 'x',
      startsAt: '2026-12-01T00:00:00.000Z',
      audience: {},
      variants: [{ imageId: '00000000-0000-4000-8000-000000000000', link: 'https://x.example/', alt: '', weight: 1 }],
    },
    minRole: 'admin',
  },
  { method: 'GET', route: '/v1/orgs/{orgId}/campaigns', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/campaigns/{campaignId}', minRole: 'admin' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/campaigns/{campaignId}', body: { version: 1, name: 'x' }, minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/campaigns/{campaignId}', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/campaigns/{campaignId}/stats', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/photo', minRole: 'member' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/users/{userId}/photo', minRole: 'member' },
  { method: 'GET', route: '/v1/orgs/{orgId}/users/{userId}/signature', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/password', body: { currentPassword: 'x', newPassword: 'a new long password' }, minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/import', body: [], minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/images', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/images', minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/images/{imageId}', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/deployments', minRole: 'admin' },
  { method: 'PUT', route: '/v1/orgs/{orgId}/integrations/google', body: { adminEmail: 'admin@example.test' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/google', minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/integrations/google', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/test', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/sync', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/scim', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/scim', minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/integrations/scim', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/groups', minRole: 'member' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/google/push', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/domains', body: { domain: 'sec.example' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/domains', minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/domains/{domain}', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/domains/{domain}/verify', minRole: 'admin' },
  {
    method: 'PUT',
    route: '/v1/orgs/{orgId}/integrations/gateway',
    body: { nextHop: { host: '127.0.0.1', port: 9, secure: false }, allowedNetworks: [], stampInternal: false },
    minRole: 'admin',
  },
  { method: 'GET', route: '/v1/orgs/{orgId}/integrations/gateway', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/gateway/rotate-password', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/integrations/gateway/test', body: { to: 'sec@example.test' }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/webhook-endpoints', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/webhook-endpoints', body: { url: 'http://127.0.0.1:9/hooks', events: ['deployment.failed'] }, minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}', minRole: 'admin' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}', body: { version: 1, disabled: true }, minRole: 'admin' },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/rotate-secret', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/test', minRole: 'admin' },
  { method: 'GET', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/deliveries', minRole: 'admin' },
  { method: 'POST', route: '/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', minRole: 'admin' },
];

// Staff-only routes: any org credential is 403.
export const ADMIN_ROUTES: Omit<RouteCase, 'minRole'>[] = [
  { method: 'GET', route: '/v1/admin/webhook-events' },
  { method: 'GET', route: '/v1/admin/webhook-events/{eventId}' },
  { method: 'POST', route: '/v1/admin/webhook-events/replay' },
  { method: 'POST', route: '/v1/admin/webhook-events/{eventId}/replay' },
  { method: 'GET', route: '/v1/admin/orgs' },
  { method: 'POST', route: '/v1/admin/orgs', body: { name: 'x', ownerEmail: 'sec@example.test' } },
  { method: 'GET', route: '/v1/admin/orgs/{orgId}' },
  { method: 'PATCH', route: '/v1/admin/orgs/{orgId}', body: { quotaPerMonth: 10 } },
  { method: 'GET', route: '/v1/admin/staff' },
  { method: 'POST', route: '/v1/admin/staff', body: { email: 'sec@example.test' } },
  { method: 'DELETE', route: '/v1/admin/staff/{userId}' },
  { method: 'POST', route: '/v1/admin/staff/{userId}/mfa/reset' },
  { method: 'GET', route: '/v1/admin/audit' },
  { method: 'POST', route: '/v1/admin/orgs/{orgId}/domains/{domain}/verify' },
  { method: 'GET', route: '/v1/admin/gateway-errors' },
];

// Routes without a token, each with its own proof of origin (or none by design).
// The add-in's signature route takes the org's add-in key (test/outlook-addin.test.ts has its cases).
const PUBLIC_ROUTES = [
  'GET /v1/images/{imageId}',
  'GET /v1/p/{userId}',
  'POST /v1/webhooks/payment-provider',
  'GET /v1/addin/signature',
  'GET /v1/social/{file}',
  'GET /v1/starters/{starterId}/thumbnail.png',
  'GET /v1/c/{*}',
];

describe('security cases on every org route', () => {
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    // The gateway's next hop and the webhook endpoint the table makes are on this machine, at a
    // port nothing listens on: a route let past authorization reaches no one else.
    server = await startServer({ GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    org = await createOrg(server);
    other = await createOrg(server);
  });
  after(() => server.close());

  test('every org route of the OpenAPI document is in the security table', async () => {
    const doc = (await server.request('GET', '/v1/openapi.json')).body;
    const documented = openApiOperations(doc, '/v1/orgs/');
    const covered = ORG_ROUTES.map((r) => `${r.method} ${r.route}`).sort();
    assert.deepEqual(documented, covered);
  });

  test('every /v1 route of the OpenAPI document is in one of the tables', async () => {
    const doc = (await server.request('GET', '/v1/openapi.json')).body;
    const documented = openApiOperations(doc, '/v1/');
    const covered = [...ORG_ROUTES, ...ADMIN_ROUTES]
      .map((r) => `${r.method} ${r.route}`)
      .concat(PUBLIC_ROUTES)
      .sort();
    assert.deepEqual(documented, covered);
  });

  test('staff routes: no credentials 401; an org API key 403', async () => {
    for (const c of ADMIN_ROUTES) {
      const path = fillPath(c.route, org, { eventId: 'evt_1' });
      const body = c.body ? { body: c.body } : {};
      assert.equal((await server.request(c.method, path, body)).status, 401, c.route);
      const res = await server.request(c.method, path, { key: org.key, ...body });
      assert.equal(res.status, 403, c.route);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    }
  });

  test("each route's minimum role: a member's ID token 403 on every admin route, an admin's on owner-only ones; staff routes 403 to every org role", async () => {
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const tokens = { member: '', admin: '', owner: '' };
    for (const role of ['member', 'admin', 'owner'] as const) {
      const account = await userWithPassword(server, org, role);
      tokens[role] = (await signIn(app, { username: account.email, password: account.password })).tokens.id_token as string;
    }
    const refusals = await assertRoleCases(server, ORG_ROUTES, org, tokens);
    assert.equal(refusals, ORG_ROUTES.filter((r) => r.minRole !== 'member').length);
    for (const c of ADMIN_ROUTES) {
      for (const role of ['member', 'admin', 'owner'] as const) {
        const res = await server.request(c.method, fillPath(c.route, org, { eventId: 'evt_1' }), { token: tokens[role], ...(c.body ? { body: c.body } : {}) });
        assert.equal(res.status, 403, `${c.method} ${c.route} with an ${role}'s ID token`);
      }
    }
  });

  test('no credentials, bad, unknown, revoked or foreign-stage keys: 401; another org: 403', async () => {
    await assertSecurityCases(server, ORG_ROUTES, org, other);
  });

  test("a guessed id of another org's object is never answered", async () => {
    const user = await createUser(server, other);
    const template = await createTemplate(server, other);
    const ids = { userId: user.userId, templateId: template.templateId, keyId: other.keyId };
    for (const c of ORG_ROUTES.filter((r) => /\{(userId|templateId|keyId)\}/.test(r.route))) {
      // Our own org in the path, the other org's object id: not found, and nothing changes.
      const res = await server.request(c.method, fillPath(c.route, org, ids), { key: org.key, ...(c.body ? { body: c.body } : {}) });
      assert.equal(res.status, 404, `${c.method} ${c.route}: ${res.status} ${res.text}`);
    }
    const still = await server.request('GET', `/v1/orgs/${other.orgId}/users/${user.userId}`, { key: other.key });
    assert.equal(still.status, 200);
    assert.equal(still.body.version, 1);
    const keyStill = await server.request('GET', `/v1/orgs/${other.orgId}`, { key: other.key });
    assert.equal(keyStill.status, 200, 'the other org key was not revoked through a foreign path');
  });
  test('an org past its grace period: every write, and every read that renders, answers 402; key revocation and the other reads do not', async () => {
    const lapsed = await createOrg(server);
    const user = await createUser(server, lapsed);
    const template = await createTemplate(server, lapsed);
    // A second key, which the ungated revocation route revokes.
    const leaked = await server.request('POST', `/v1/orgs/${lapsed.orgId}/api-keys`, { key: lapsed.key, body: { name: 'leaked' } });
    await lapseOrg(server, lapsed.orgId);
    const gated = await assertBillingGate(server, ORG_ROUTES, lapsed, { userId: user.userId, templateId: template.templateId, keyId: leaked.body.keyId });
    assert.equal(gated, ORG_ROUTES.filter(billingGated).length);
    assert.ok(gated >= 28, `${gated} gated routes`);
    // Nothing the gated requests carried was applied.
    const still = await server.request('GET', `/v1/orgs/${lapsed.orgId}/users/${user.userId}`, { key: lapsed.key });
    assert.equal(still.body.version, 1);
    const templateStill = await server.request('GET', `/v1/orgs/${lapsed.orgId}/templates/${template.templateId}`, { key: lapsed.key });
    assert.equal(templateStill.body.version, 1);
    const keys = await server.request('GET', `/v1/orgs/${lapsed.orgId}/api-keys`, { key: lapsed.key });
    assert.ok(keys.body.items.find((k: { keyId: string }) => k.keyId === leaked.body.keyId).revokedAt, 'the revocation went through');
  });
});
