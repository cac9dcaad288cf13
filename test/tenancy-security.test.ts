import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { assertSecurityCases, fillPath, openApiOperations, type RouteCase } from './helpers/security.ts';

// Every org route. The catalog test below fails when a route exists that this table lacks.
export const ORG_ROUTES: RouteCase[] = [
  { method: 'GET', route: '/v1/orgs/{orgId}' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}', body: { version: 1, name: 'x' } },
  { method: 'GET', route: '/v1/orgs/{orgId}/users' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users', body: { email: 'sec@example.test' } },
  { method: 'GET', route: '/v1/orgs/{orgId}/users/{userId}' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/users/{userId}', body: { version: 1, name: 'x' } },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/users/{userId}' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp' },
  { method: 'POST', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp/verify', body: { code: '123456' } },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/users/{userId}/mfa/totp' },
  { method: 'GET', route: '/v1/orgs/{orgId}/templates' },
  { method: 'POST', route: '/v1/orgs/{orgId}/templates', body: { name: 'x', html: '<p>x</p>' } },
  { method: 'GET', route: '/v1/orgs/{orgId}/templates/{templateId}' },
  { method: 'PATCH', route: '/v1/orgs/{orgId}/templates/{templateId}', body: { version: 1, name: 'x' } },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/templates/{templateId}' },
  { method: 'GET', route: '/v1/orgs/{orgId}/api-keys' },
  { method: 'POST', route: '/v1/orgs/{orgId}/api-keys', body: { name: 'x' } },
  { method: 'DELETE', route: '/v1/orgs/{orgId}/api-keys/{keyId}' },
  { method: 'GET', route: '/v1/orgs/{orgId}/audit' },
  { method: 'GET', route: '/v1/orgs/{orgId}/plan-status' },
  { method: 'POST', route: '/v1/orgs/{orgId}/render/{userId}' },
  { method: 'POST', route: '/v1/orgs/{orgId}/templates/preview', body: { userId: '00000000-0000-4000-8000-000000000000', html: '<p>x</p>' } },
  { method: 'GET', route: '/v1/orgs/{orgId}/opens' },
];

// Staff-only routes: any org credential is 403.
export const ADMIN_ROUTES: RouteCase[] = [
  { method: 'GET', route: '/v1/admin/webhook-events' },
  { method: 'POST', route: '/v1/admin/webhook-events/{eventId}/replay' },
];

// Routes without a token, each with its own proof of origin (or none by design).
const PUBLIC_ROUTES = ['GET /v1/p/{userId}', 'POST /v1/webhooks/payment-provider'];

describe('security cases on every org route', () => {
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    server = await startServer();
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
    const covered = [...ORG_ROUTES, ...ADMIN_ROUTES].map((r) => `${r.method} ${r.route}`).concat(PUBLIC_ROUTES).sort();
    assert.deepEqual(documented, covered);
  });

  test('staff routes: no credentials 401; an org API key 403', async () => {
    for (const c of ADMIN_ROUTES) {
      const path = fillPath(c.route, org, { eventId: 'evt_1' });
      assert.equal((await server.request(c.method, path)).status, 401, c.route);
      const res = await server.request(c.method, path, { key: org.key });
      assert.equal(res.status, 403, c.route);
      assert.equal(res.body.error.code, 'FORBIDDEN');
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
});
