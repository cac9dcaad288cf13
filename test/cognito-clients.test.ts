// What a Cognito client does with our identity provider, with the libraries such clients use:
// openid-client for the whole code + PKCE flow, refresh and userinfo; aws-jwt-verify's generic
// JwtVerifier (JWKS over HTTP, iss, aud, exp, alg) on the ID token. Access tokens stay opaque
// (docs/identity.md says why); they work at /oauth2/userInfo, and the API refuses them (docs/guide.md, "Credentials").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';

describe('Cognito clients: openid-client and aws-jwt-verify', () => {
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  let verifier: ReturnType<typeof JwtVerifier.create<{ issuer: string; audience: string; jwksUri: string }>>;

  // aws-jwt-verify fetches JWKS over https only; the test server is plain http on loopback, so
  // its cache gets a fetcher that speaks http (everything else is the library's own).
  const jwksCache = new SimpleJwksCache({ fetcher: { fetch: async (uri: string) => (await fetch(uri)).arrayBuffer() } });

  before(async () => {
    server = await startServer({ STAGE: 'cog' });
    org = await createOrg(server);
    const { authUrl, appUrl } = server.deps.config;
    app = await oidcClient(authUrl, 'app-client-cog', appUrl);
    // What a Cognito app configures: the pool's issuer, its client id, the JWKS the discovery names.
    verifier = JwtVerifier.create(
      {
        issuer: authUrl,
        audience: 'app-client-cog',
        jwksUri: String(app.config.serverMetadata().jwks_uri),
      },
      { jwksCache },
    );
  });
  after(() => server.close());

  test('code + PKCE with openid-client; the ID token passes aws-jwt-verify with Cognito claims', async () => {
    const owner = await userWithPassword(server, org, 'owner');
    const { tokens } = await signIn(app, { username: owner.email, password: owner.password });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    // openid-client validated the ID token (iss, aud, nonce-less code flow, signature) already.
    const claims = tokens.claims();
    assert.equal(claims?.sub, owner.userId);

    const payload = await verifier.verify(tokens.id_token as string, {
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'id') throw new Error(`token_use is ${String(payload.token_use)}`);
      },
    });
    assert.equal(payload.sub, owner.userId);
    assert.equal(payload.aud, 'app-client-cog');
    assert.equal(payload.iss, server.deps.config.authUrl);
    assert.equal(payload.token_use, 'id');
    assert.equal(payload['cognito:username'], owner.userId);
    assert.equal(payload['custom:orgId'], org.orgId);
    assert.equal(payload['custom:role'], 'owner');
    assert.equal(payload.email, owner.email);
    assert.equal(typeof payload.auth_time, 'number');
    assert.equal(typeof payload.iat, 'number');
    assert.ok((payload.exp as number) > (payload.iat as number));

    // Verified, the same ID token opens the API.
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 200);
  });

  test('the verifier refuses a token of another client, and a tampered one', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const otherClient = JwtVerifier.create(
      { issuer: server.deps.config.authUrl, audience: 'admin-client-cog', jwksUri: String(app.config.serverMetadata().jwks_uri) },
      { jwksCache },
    );
    await assert.rejects(otherClient.verify(tokens.id_token as string), /audience/i);
    const [h, p, s] = (tokens.id_token as string).split('.');
    const body = JSON.parse(Buffer.from(p as string, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...body, 'custom:role': 'owner' })).toString('base64url')}.${s}`;
    await assert.rejects(verifier.verify(forged), /signature/i);
  });

  test('the access token: userinfo through openid-client; the API refuses it; refresh gives verifiable ID tokens', async () => {
    const admin = await userWithPassword(server, org, 'admin');
    const { tokens } = await signIn(app, { username: admin.email, password: admin.password });
    const accessToken = tokens.access_token;
    // Opaque: not a JWT a resource server could read (see docs/identity.md).
    assert.equal(accessToken.split('.').length, 1);
    await assert.rejects(verifier.verify(accessToken));

    const info = await client.fetchUserInfo(app.config, accessToken, admin.userId);
    assert.equal(info.sub, admin.userId);
    assert.equal(info.email, admin.email);
    assert.equal(info['custom:orgId'], undefined, 'no tenancy claims outside the ID token');

    const refused = await server.request('GET', `/v1/orgs/${org.orgId}`, { token: accessToken });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'UNAUTHORIZED');

    const refreshed = await client.refreshTokenGrant(app.config, tokens.refresh_token as string);
    const again = await verifier.verify(refreshed.id_token as string);
    assert.equal(again.sub, admin.userId);
    assert.equal(again.token_use, 'id');
    // The refreshed access token still reads userinfo.
    assert.equal((await client.fetchUserInfo(app.config, refreshed.access_token, admin.userId)).sub, admin.userId);
  });
});
