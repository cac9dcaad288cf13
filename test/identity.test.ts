import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, staffAccount, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { Browser, authorizeUrl, client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';
import { totpCode } from '../src/idp/totp.ts';
import { api, ok, refused, type ApiClient } from './helpers/api.ts';

describe('identity provider: authorization code + PKCE', () => {
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  let admin: OidcClient;
  let clockOffsetMs = 0;
  before(async () => {
    server = await startServer({ STAGE: 'qa' }, { clock: () => new Date(Date.now() + clockOffsetMs) });
    org = await createOrg(server);
    const { authUrl, appUrl, adminUrl } = server.deps.config;
    app = await oidcClient(authUrl, 'app-client-qa', appUrl);
    admin = await oidcClient(authUrl, 'admin-client-qa', adminUrl);
  });
  after(() => server.close());

  test('discovery names Cognito-shaped endpoints under AUTH_URL and only S256', async () => {
    const meta = app.config.serverMetadata();
    const auth = server.deps.config.authUrl;
    assert.equal(meta.issuer, auth);
    assert.equal(meta.authorization_endpoint, `${auth}/oauth2/authorize`);
    assert.equal(meta.token_endpoint, `${auth}/oauth2/token`);
    assert.equal(meta.userinfo_endpoint, `${auth}/oauth2/userInfo`);
    assert.equal(meta.end_session_endpoint, `${auth}/logout`);
    assert.equal(meta.jwks_uri, `${auth}/.well-known/jwks.json`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    const jwksRes = await fetch(meta.jwks_uri as string, { headers: { 'x-correlation-id': 'idp-trace-1' } });
    assert.equal(jwksRes.headers.get('x-correlation-id'), 'idp-trace-1', 'the provider echoes correlation ids too');
    const jwks = (await jwksRes.json()) as { keys: Record<string, unknown>[] };
    assert.ok(jwks.keys.length >= 1);
    assert.ok(
      jwks.keys.every((k: Record<string, unknown>) => k.d === undefined),
      'no private parts published',
    );
  });

  test('sign-in, code exchange, ID token on the API; the access token is refused', async () => {
    const owner = await userWithPassword(server, org, 'owner');
    const { tokens } = await signIn(app, { username: owner.email, password: owner.password });
    assert.ok(tokens.id_token && tokens.access_token && tokens.refresh_token);
    const claims = decodeJwt(tokens.id_token);
    assert.equal(claims.sub, owner.userId);
    assert.equal(claims.email, owner.email);
    assert.equal(claims['custom:orgId'], org.orgId);
    assert.equal(claims['custom:role'], 'owner');
    assert.equal(claims.token_use, 'id');
    assert.equal(claims.aud, 'app-client-qa');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.equal(tokens.expires_in, 3600);

    const ok = await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token });
    assert.equal(ok.status, 200);
    const refused = await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.access_token });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'UNAUTHORIZED');
    const userinfo = await fetch(`${server.deps.config.authUrl}/oauth2/userInfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const info = (await userinfo.json()) as Record<string, unknown>;
    assert.equal(info.sub, owner.userId);
    assert.equal(info['custom:orgId'], undefined, 'no tenancy claims outside the ID token');
  });

  test('refresh mints new ID tokens; another org is 403 with an ID token too', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const refreshed = await client.refreshTokenGrant(app.config, tokens.refresh_token as string);
    assert.ok(refreshed.id_token);
    const claims = decodeJwt(refreshed.id_token);
    assert.equal(claims.sub, member.userId);
    assert.equal(claims['custom:role'], 'member');
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users`, { token: refreshed.id_token })).status, 200);
    const other = await createOrg(server);
    const cross = await server.request('GET', `/v1/orgs/${other.orgId}`, { token: refreshed.id_token });
    assert.equal(cross.status, 403);
  });

  test('refresh tokens live 30 days (customer client) and 7 days (admin client), grants as long', async () => {
    const member = await userWithPassword(server, org, 'member');
    await signIn(app, { username: member.email, password: member.password });
    const rows = await server.deps.database.db
      .selectFrom('oidc_payloads')
      .select(['model', 'expires_at'])
      .where('account_id', '=', member.userId)
      .where('model', 'in', ['RefreshToken', 'Grant'])
      .execute();
    const days = (d: Date | null) => Math.round(((d as Date).getTime() - Date.now()) / 86_400_000);
    assert.equal(days(rows.find((r) => r.model === 'RefreshToken')?.expires_at ?? null), 30);
    assert.ok(days(rows.find((r) => r.model === 'Grant')?.expires_at ?? null) >= 30);
    const { refreshTokenTtlAdminS, refreshTokenTtlAppS } = server.deps.config;
    assert.deepEqual([refreshTokenTtlAppS, refreshTokenTtlAdminS], [2592000, 604800]);
  });

  test('a wrong verifier and a replayed code are refused', async () => {
    const member = await userWithPassword(server, org, 'member');
    const first = await signIn(app, { username: member.email, password: member.password });
    // Replay: the same code again.
    await assert.rejects(
      client.authorizationCodeGrant(app.config, first.callback, { pkceCodeVerifier: first.verifier }),
      (err: { error?: string }) => err.error === 'invalid_grant',
    );
    // A fresh code with the wrong verifier.
    const browser = new Browser();
    const { url } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    step = await browser.submit(step.url, { username: member.email, password: member.password }, app.redirectUri);
    assert.ok(step.callback);
    await assert.rejects(
      client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: client.randomPKCECodeVerifier() }),
      (err: { error?: string }) => err.error === 'invalid_grant',
    );
  });

  test('no challenge or the plain method: redirected back with invalid_request; unregistered redirect: never redirected to', async () => {
    const auth = `${server.deps.config.authUrl}/oauth2/authorize`;
    const common = { client_id: 'app-client-qa', response_type: 'code', scope: 'openid email profile', redirect_uri: app.redirectUri };
    const noChallenge = await fetch(`${auth}?${new URLSearchParams(common)}`, { redirect: 'manual' });
    assert.equal(noChallenge.status, 303);
    const to = new URL(noChallenge.headers.get('location') as string);
    assert.equal(`${to.origin}${to.pathname}`, app.redirectUri);
    assert.equal(to.searchParams.get('error'), 'invalid_request');
    const plain = await fetch(`${auth}?${new URLSearchParams({ ...common, code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' })}`, {
      redirect: 'manual',
    });
    assert.equal(new URL(plain.headers.get('location') as string).searchParams.get('error'), 'invalid_request');
    for (const redirect of ['https://evil.example/cb', server.deps.config.adminUrl]) {
      const res = await fetch(
        `${auth}?${new URLSearchParams({ ...common, redirect_uri: redirect, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
        { redirect: 'manual' },
      );
      assert.equal(res.status, 400, redirect);
      assert.equal(res.headers.get('location'), null);
    }
  });

  test('TOTP: enrol through the API, then sign-in asks for a code; a code is accepted once', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const token = tokens.id_token as string;
    const asMember = api(server, { token });
    const userPath = { params: { path: { orgId: org.orgId, userId: member.userId } } };
    const started = ok(await asMember.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp', userPath), 200);
    assert.match(started.otpauthUri, /^otpauth:\/\/totp\//);
    refused(await asMember.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp/verify', { ...userPath, body: { code: '000000' } }), 400);
    // The enrolment's time step, kept: a code computed again later could fall in the next 30-s step.
    const enrolledAt = Date.now();
    ok(await asMember.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp/verify', { ...userPath, body: { code: totpCode(started.secret, enrolledAt) } }), 200);
    assert.equal(ok(await asMember.GET('/v1/orgs/{orgId}/users/{userId}', userPath)).mfaEnabled, true);

    // Sign in again: the code page appears; the enrolment's code (same step) is not accepted again.
    const browser = new Browser();
    const { url, verifier } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    step = await browser.submit(step.url, { username: member.email, password: member.password }, app.redirectUri);
    assert.match(browser.lastPage, /name="otp"/);
    step = await browser.submit(step.url, { otp: totpCode(started.secret, enrolledAt) }, app.redirectUri);
    assert.equal(step.callback, undefined, 'a used code is refused');
    assert.equal(browser.lastStatus, 401);
    const next = totpCode(started.secret, enrolledAt + 30_000);
    step = await browser.submit(step.url, { otp: next }, app.redirectUri);
    assert.ok(step.callback, browser.lastPage.slice(0, 300));
    const signedIn = await client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: verifier });
    assert.deepEqual(decodeJwt(signedIn.id_token as string).amr, ['pwd', 'otp']);

    // Someone else may not enrol this user; an admin may turn it off.
    const adminUser = await userWithPassword(server, org, 'admin');
    const adminTokens = (await signIn(app, { username: adminUser.email, password: adminUser.password })).tokens;
    const asAdmin = api(server, { token: adminTokens.id_token as string });
    refused(await asAdmin.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp', userPath), 403);
    ok(await asAdmin.DELETE('/v1/orgs/{orgId}/users/{userId}/mfa/totp', userPath), 200);
    const audit = ok(await api(server, org).GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId: org.orgId }, query: { targetId: member.userId } } }));
    const actions = audit.items.map((e) => e.action);
    assert.deepEqual(
      actions.filter((a) => a.startsWith('user.mfa')),
      ['user.mfa.disable', 'user.mfa.enable'],
      'the refused code left no entry',
    );
    assert.equal(ok(await asMember.GET('/v1/orgs/{orgId}/users/{userId}', userPath)).mfaEnabled, false);
  });

  test('the admin client: staff enrol TOTP before any code is issued, then act as super-admin', async () => {
    const staff = await staffAccount(server);
    const browser = new Browser();
    const { url, verifier } = await authorizeUrl(admin);
    let step = await browser.follow(url, admin.redirectUri);
    step = await browser.submit(step.url, { username: staff.email, password: staff.password }, admin.redirectUri);
    assert.equal(step.callback, undefined, 'no code after the password alone');
    const secret = /data-secret>([A-Z2-7]+)</.exec(browser.lastPage)?.[1];
    assert.ok(secret, 'the enrolment page shows the key');
    assert.match(browser.lastPage, /<img src="data:image\/png;base64,/);
    step = await browser.submit(step.url, { otp: '123456' }, admin.redirectUri);
    assert.equal(step.callback, undefined);
    step = await browser.submit(step.url, { otp: totpCode(secret) }, admin.redirectUri);
    assert.ok(step.callback);
    const tokens = await client.authorizationCodeGrant(admin.config, step.callback, { pkceCodeVerifier: verifier });
    const claims = decodeJwt(tokens.id_token as string);
    assert.equal(claims['custom:role'], 'super-admin');
    assert.equal(claims.aud, 'admin-client-qa');
    const rt = await server.deps.database.db
      .selectFrom('oidc_payloads')
      .select('expires_at')
      .where('account_id', '=', staff.userId)
      .where('model', '=', 'RefreshToken')
      .executeTakeFirstOrThrow();
    assert.equal(Math.round(((rt.expires_at as Date).getTime() - Date.now()) / 86_400_000), 7);
    // Any org, including audit (admin-only).
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/audit`, { token: tokens.id_token as string })).status, 200);
    // Staff cannot sign in through the customer client; org users not through the admin client.
    await assert.rejects(signIn(app, { username: staff.email, password: staff.password }), /sign-in did not finish/);
    const member = await userWithPassword(server, org, 'member');
    await assert.rejects(signIn(admin, { username: member.email, password: member.password }), /sign-in did not finish/);
  });

  test('a customer-client session does not open the admin client', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { browser } = await signIn(app, { username: member.email, password: member.password });
    const { url } = await authorizeUrl(admin);
    const step = await browser.follow(url, admin.redirectUri);
    assert.equal(step.callback, undefined);
    assert.match(browser.lastPage, /name="password"/);
  });

  test('five failed attempts lock the account; the answer never says whether it exists', async () => {
    const member = await userWithPassword(server, org, 'member');
    const browser = new Browser();
    const { url } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    for (let i = 0; i < 5; i++) {
      step = await browser.submit(step.url, { username: member.email, password: 'wrong password!' }, app.redirectUri);
      assert.equal(browser.lastStatus, 401);
    }
    const lockedPage = await browser.submit(step.url, { username: member.email, password: member.password }, app.redirectUri);
    assert.equal(lockedPage.callback, undefined, 'the right password is refused while locked');
    const lockedText = browser.lastPage.replace(/value="[^"]*"/, '');
    await browser.submit(step.url, { username: 'nobody@nowhere.test', password: 'whatever it is' }, app.redirectUri);
    assert.equal(browser.lastPage.replace(/value="[^"]*"/, ''), lockedText, 'same answer for a missing account');
  });

  test('member, admin and owner over HTTP with ID tokens', async () => {
    const tokenOf = async (role: 'member' | 'admin' | 'owner') => {
      const u = await userWithPassword(server, org, role);
      return { ...u, token: (await signIn(app, { username: u.email, password: u.password })).tokens.id_token as string };
    };
    const member = await tokenOf('member');
    const adminU = await tokenOf('admin');
    const owner = await tokenOf('owner');
    const [asMember, asAdmin, asOwner] = [member, adminU, owner].map((u) => api(server, { token: u.token })) as [ApiClient, ApiClient, ApiClient];
    const orgPath = { params: { path: { orgId: org.orgId } } };
    const userPath = (userId: string) => ({ params: { path: { orgId: org.orgId, userId } } });
    refused(await asMember.POST('/v1/orgs/{orgId}/users', { ...orgPath, body: { email: 'm-made@example.test' } }), 403);
    refused(await asMember.GET('/v1/orgs/{orgId}/audit', orgPath), 403);
    refused(await asMember.POST('/v1/orgs/{orgId}/api-keys', { ...orgPath, body: { name: 'x' } }), 403);
    const self = ok(await asMember.GET('/v1/orgs/{orgId}/users/{userId}', userPath(member.userId)));
    // Who edits what (wave 3): a member's own title is the admin's (not in the default selfServiceFields); their name is theirs.
    const titleEdit = refused(
      await asMember.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(member.userId), body: { version: self.version, title: 'Chief' } }),
      403,
    );
    assert.equal(titleEdit.error.details?.field, 'title');
    const ownEdit = ok(
      await asMember.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(member.userId), body: { version: self.version, name: 'Chief' } }),
      200,
    );
    const roleEdit = refused(
      await asMember.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(member.userId), body: { version: ownEdit.version, role: 'admin' } }),
      403,
    );
    assert.equal(roleEdit.error.details?.field, 'role');
    refused(await asMember.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(adminU.userId), body: { version: 1, title: 'x' } }), 403);
    const o2 = `o2-${crypto.randomUUID().slice(0, 8)}@example.test`;
    refused(await asAdmin.POST('/v1/orgs/{orgId}/users', { ...orgPath, body: { email: o2, role: 'owner' } }), 403);
    ok(await asOwner.POST('/v1/orgs/{orgId}/users', { ...orgPath, body: { email: o2, role: 'owner' } }), 201);
    const ownerSelf = ok(await asOwner.GET('/v1/orgs/{orgId}/users/{userId}', userPath(owner.userId)));
    refused(await asOwner.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(owner.userId), body: { version: ownerSelf.version, role: 'admin' } }), 403);
    // A demotion takes effect at once, before the token expires.
    ok(await asOwner.PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(member.userId), body: { version: ownEdit.version, role: 'admin' } }), 200);
    ok(await asMember.GET('/v1/orgs/{orgId}/audit', orgPath), 200);
  });

  test('deleting a user ends their ID token and refresh token', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key })).status, 204);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 401);
    await assert.rejects(client.refreshTokenGrant(app.config, tokens.refresh_token as string), (err: { error?: string }) => err.error === 'invalid_grant');
  });

  test('a temporary password must be replaced at first sign-in', async () => {
    const temp = `temp-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const created = ok(
      await api(server, org).POST('/v1/orgs/{orgId}/users', {
        params: { path: { orgId: org.orgId } },
        body: { email: temp, temporaryPassword: 'temporary password 1' },
      }),
      201,
    );
    const browser = new Browser();
    const { url, verifier } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    step = await browser.submit(step.url, { username: temp, password: 'temporary password 1' }, app.redirectUri);
    assert.match(browser.lastPage, /name="new_password"/);
    step = await browser.submit(step.url, { new_password: 'short' }, app.redirectUri);
    assert.equal(browser.lastStatus, 400);
    step = await browser.submit(step.url, { new_password: 'my own new password' }, app.redirectUri);
    assert.ok(step.callback);
    const tokens = await client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: verifier });
    assert.equal(decodeJwt(tokens.id_token as string).sub, created.userId);
    const again = await signIn(app, { username: temp, password: 'my own new password' });
    assert.ok(again.tokens.id_token);
  });

  test('an expired ID token is refused', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 200);
    clockOffsetMs = 3601_000;
    try {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string });
      assert.equal(res.status, 401);
    } finally {
      clockOffsetMs = 0;
    }
  });

  test('logout: the provider answers its sign-out page, and a later authorize asks to sign in again', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { browser, tokens } = await signIn(app, { username: member.email, password: member.password });
    const page = await browser.follow(
      `${server.deps.config.authUrl}/logout?${new URLSearchParams({ client_id: 'app-client-qa', id_token_hint: tokens.id_token as string, post_logout_redirect_uri: app.redirectUri })}`,
      app.redirectUri,
    );
    assert.equal(page.status, 200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(browser.lastPage)?.[1];
    assert.ok(xsrf, browser.lastPage.slice(0, 300));
    const done = await browser.fetch(`${server.deps.config.authUrl}/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    assert.equal(done.status, 303);
    const { url } = await authorizeUrl(app);
    const again = await browser.follow(url, app.redirectUri);
    assert.equal(again.callback, undefined, 'the session is gone');
    assert.match(browser.lastPage, /name="password"/);
  });

  test('an ID token of another issuer or signed by another key is refused', async () => {
    const { SignJWT, generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ token_use: 'id', 'custom:orgId': org.orgId, 'custom:role': 'owner' })
      .setProtectedHeader({ alg: 'RS256', kid: 'forged' })
      .setIssuer(server.deps.config.authUrl)
      .setAudience('app-client-qa')
      .setSubject(org.ownerUserId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { token: forged })).status, 401);
  });
});

describe('OIDC_ISSUER: trusting an external issuer by discovery', () => {
  test("another issuer's ID tokens pass authentication; its access tokens do not", async () => {
    const issuerServer = await startServer({ STAGE: 'ext' });
    try {
      const org = await createOrg(issuerServer);
      const owner = await userWithPassword(issuerServer, org, 'owner');
      const c = await oidcClient(issuerServer.deps.config.authUrl, 'app-client-ext', issuerServer.deps.config.appUrl);
      const { tokens } = await signIn(c, { username: owner.email, password: owner.password });
      const trusting = await startServer({ OIDC_ISSUER: issuerServer.deps.config.authUrl, OIDC_AUDIENCES: 'app-client-ext', DATABASE_URL: 'memory://' });
      const plain = await startServer({ DATABASE_URL: 'memory://' });
      try {
        // Authenticated, authorized for its org, which this service does not hold: 404, not 401.
        const res = await trusting.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string });
        assert.equal(res.status, 404, res.text);
        assert.equal((await trusting.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.access_token })).status, 401);
        assert.equal((await plain.request('GET', `/v1/orgs/${org.orgId}`, { token: tokens.id_token as string })).status, 401);
      } finally {
        await trusting.close();
        await plain.close();
      }
    } finally {
      await issuerServer.close();
    }
  });
});
