// Answers that show a secret once carry `Cache-Control: private, no-store` (DECISIONS wave 3,
// "Secrets stay out of logs"), so no cache keeps them: an API key, a SCIM token, a webhook
// endpoint's signing secret and the gateway's SMTP password, when made and when rotated. A hostile review found none had it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg } from './helpers/fixtures.ts';

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
});
