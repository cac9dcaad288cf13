// The staff API over staff (docs/api.md, "Staff"): list, invite, disable (never oneself),
// reset another's TOTP (never one's own), the staff audit across orgs; and a staff sign-in that
// lasts no longer than 7 days, the identity provider's session included. The server's clock is the
// test's, so nothing here sleeps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, staffAccount } from './helpers/fixtures.ts';
import { Browser, authorizeUrl, client, oidcClient, type OidcClient } from './helpers/browser.ts';
import { totpCode } from '../src/idp/totp.ts';

const DAY_S = 86_400;
const STAFF_SCOPE = 'openid email profile aws.cognito.signin.user.admin custom:role=super-admin';

describe('staff API: staff, the staff audit, the 7-day staff sign-in', () => {
  let server: TestServer;
  let admin: OidcClient;
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  /** Past the TOTP step just used: each sign-in below needs a code of a step not used before. */
  const nextStep = () => {
    offsetMs += 31_000;
  };

  before(async () => {
    server = await startServer({}, { clock });
    const { authUrl, adminUrl, stage } = server.deps.config;
    admin = await oidcClient(authUrl, `admin-client-${stage}`, adminUrl);
  });
  after(() => server.close());

  /** A staff member with TOTP enrolled; `code()` is the current code by the server's clock. */
  async function enrolledStaff() {
    const staff = await staffAccount(server);
    const started = await server.deps.signIn.enrolment(staff.userId);
    assert.ok(started);
    assert.ok(await server.deps.signIn.confirmEnrolment(staff.userId, totpCode(started.secret, clock().getTime())));
    nextStep();
    return { ...staff, secret: started.secret, code: () => totpCode(started.secret, clock().getTime()) };
  }

  /** Authorize through the admin client in `browser`: signs in with password and code when asked. */
  async function authorize(browser: Browser, staff?: { email: string; password: string; code: () => string }) {
    const { url, verifier } = await authorizeUrl(admin, { scope: STAFF_SCOPE });
    let step = await browser.follow(url, admin.redirectUri);
    const askedToSignIn = !step.callback;
    if (!step.callback && staff) {
      step = await browser.submit(step.url, { username: staff.email, password: staff.password }, admin.redirectUri);
      if (!step.callback && /name="otp"/.test(browser.lastPage)) step = await browser.submit(step.url, { otp: staff.code() }, admin.redirectUri);
    }
    if (!step.callback) return { askedToSignIn, page: browser.lastPage };
    const tokens = await client.authorizationCodeGrant(admin.config, step.callback, { pkceCodeVerifier: verifier });
    return { askedToSignIn, tokens, page: '' };
  }

  async function signedIn() {
    const staff = await enrolledStaff();
    const browser = new Browser();
    const { tokens } = await authorize(browser, staff);
    assert.ok(tokens, 'signed in');
    nextStep();
    return { ...staff, browser, token: tokens.id_token as string, refreshToken: tokens.refresh_token as string };
  }

  const as = (token: string) => ({
    get: (path: string) => server.request('GET', path, { token }),
    post: (path: string, body?: unknown, correlationId?: string) =>
      server.request('POST', path, {
        token,
        ...(body === undefined ? {} : { body }),
        ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
      }),
    del: (path: string, correlationId?: string) =>
      server.request('DELETE', path, { token, ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}) }),
  });

  test('list and invite: an invited member has no password yet; a live email twice is 409; bad input 400 and nothing made', async () => {
    const me = await signedIn();
    const api = as(me.token);
    const email = `invited-${randomUUID().slice(0, 8)}@operator.test`;
    const invited = await api.post('/v1/admin/staff', { email, name: 'Grace Hopper' }, 'corr-invite');
    assert.equal(invited.status, 201, invited.text);
    assert.deepEqual(
      [invited.body.email, invited.body.name, invited.body.status, invited.body.mfaEnabled, invited.body.disabledAt],
      [email, 'Grace Hopper', 'invited', false, null],
    );
    const twice = await api.post('/v1/admin/staff', { email: email.toUpperCase() });
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.error.code, 'CONFLICT');
    for (const body of [{ email: 'nope' }, { name: 'x' }, { email, role: 'owner' }]) {
      const refused = await api.post('/v1/admin/staff', body);
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
    }

    // The list pages through everyone, in the order they were added; the status filter narrows it.
    const seen: { userId: string; status: string; mfaEnabled: boolean }[] = [];
    let cursor: string | null = null;
    do {
      const res = await api.get(`/v1/admin/staff?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, res.text);
      seen.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(new Set(seen.map((s) => s.userId)).size, seen.length, 'no one twice');
    assert.deepEqual(
      seen.find((s) => s.userId === me.userId),
      { ...seen.find((s) => s.userId === me.userId), status: 'active', mfaEnabled: true },
    );
    assert.ok(seen.findIndex((s) => s.userId === me.userId) < seen.findIndex((s) => s.userId === invited.body.userId));
    const invitedOnly = (await api.get('/v1/admin/staff?status=invited&limit=200')).body.items;
    assert.ok(invitedOnly.some((s: { userId: string }) => s.userId === invited.body.userId));
    assert.ok(invitedOnly.every((s: { status: string }) => s.status === 'invited'));

    const trail = (await api.get(`/v1/admin/audit?actorId=${me.userId}&action=staff.invite`)).body.items;
    assert.deepEqual(
      trail.map((e: { targetId: string; correlationId: string; orgId: null }) => [e.targetId, e.correlationId, e.orgId]),
      [[invited.body.userId, 'corr-invite', null]],
    );
  });

  test("disable: the other's sessions and tokens end at once; never oneself; unknown or already disabled 404", async () => {
    const me = await signedIn();
    const other = await signedIn();
    const api = as(me.token);
    assert.equal((await as(other.token).get('/v1/admin/staff')).status, 200);

    const self = await api.del(`/v1/admin/staff/${me.userId}`);
    assert.equal(self.status, 403);
    assert.match(self.body.error.message, /yourself/);
    assert.equal(
      (await api.get('/v1/admin/staff?status=disabled&limit=200')).body.items.some((s: { userId: string }) => s.userId === me.userId),
      false,
    );

    const res = await api.del(`/v1/admin/staff/${other.userId}`, 'corr-disable');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'disabled');
    assert.ok(res.body.disabledAt);
    // Their ID token no longer passes, their refresh token is revoked, and they cannot sign in.
    assert.equal((await as(other.token).get('/v1/admin/staff')).status, 401);
    await assert.rejects(client.refreshTokenGrant(admin.config, other.refreshToken), (err: { error?: string }) => err.error === 'invalid_grant');
    const again = await authorize(new Browser(), other);
    assert.equal(again.tokens, undefined);
    assert.match(again.page, /Incorrect email or password/);

    assert.equal((await api.del(`/v1/admin/staff/${other.userId}`)).status, 404, 'already disabled');
    assert.equal((await api.del(`/v1/admin/staff/${randomUUID()}`)).status, 404);
    assert.equal((await api.del('/v1/admin/staff/not-a-uuid')).status, 400);
    const trail = (await api.get(`/v1/admin/audit?actorId=${me.userId}`)).body.items;
    assert.deepEqual(
      trail.map((e: { action: string; targetId: string; correlationId: string }) => [e.action, e.targetId, e.correlationId]),
      [['staff.disable', other.userId, 'corr-disable']],
    );
  });

  test("TOTP reset: the other's sessions end and their next sign-in enrols again; never one's own", async () => {
    const me = await signedIn();
    const other = await signedIn();
    const api = as(me.token);
    const own = await api.post(`/v1/admin/staff/${me.userId}/mfa/reset`);
    assert.equal(own.status, 403);
    assert.equal((await api.get('/v1/admin/staff?limit=200')).body.items.find((s: { userId: string }) => s.userId === me.userId).mfaEnabled, true);

    const res = await api.post(`/v1/admin/staff/${other.userId}/mfa/reset`, undefined, 'corr-mfa');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.status, res.body.mfaEnabled], ['active', false]);
    await assert.rejects(client.refreshTokenGrant(admin.config, other.refreshToken), (err: { error?: string }) => err.error === 'invalid_grant');
    // Their browser's session ended too: the next sign-in asks for the password, then a new enrolment.
    const { url } = await authorizeUrl(admin, { scope: STAFF_SCOPE });
    let step = await other.browser.follow(url, admin.redirectUri);
    assert.equal(step.callback, undefined, 'not signed in silently');
    step = await other.browser.submit(step.url, { username: other.email, password: other.password }, admin.redirectUri);
    assert.match(other.browser.lastPage, /data-secret>[A-Z2-7]+</, 'enrols a new authenticator');

    assert.equal((await api.post(`/v1/admin/staff/${randomUUID()}/mfa/reset`)).status, 404);
    const trail = (await api.get(`/v1/admin/audit?actorId=${me.userId}&action=staff.mfa.reset`)).body.items;
    assert.deepEqual(
      trail.map((e: { targetId: string; correlationId: string }) => [e.targetId, e.correlationId]),
      [[other.userId, 'corr-mfa']],
    );
  });

  test('the staff audit holds staff actions across orgs, newest first, and none of anyone else', async () => {
    const me = await signedIn();
    const api = as(me.token);
    const org = await createOrg(server);
    // A staff write through an org route, and an org's own write with its key.
    const renamed = await server.request('PATCH', `/v1/orgs/${org.orgId}`, {
      token: me.token,
      headers: { 'x-correlation-id': 'corr-staff-patch' },
      body: { version: 1, name: 'Renamed by staff' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((await server.request('PATCH', `/v1/orgs/${org.orgId}`, { key: org.key, body: { version: 2, name: 'Renamed by the org' } })).status, 200);
    const invited = await api.post('/v1/admin/staff', { email: `audit-${randomUUID().slice(0, 8)}@operator.test` }, 'corr-staff-invite');

    const all = (await api.get('/v1/admin/audit?limit=200')).body.items;
    assert.ok(
      all.every((e: { actor: { type: string } }) => e.actor.type === 'staff'),
      'only staff actions',
    );
    const mine = all.filter((e: { actor: { id: string } }) => e.actor.id === me.userId);
    assert.deepEqual(
      mine.map((e: { action: string; orgId: string | null; targetId: string; correlationId: string }) => [e.action, e.orgId, e.targetId, e.correlationId]),
      [
        ['staff.invite', null, invited.body.userId, 'corr-staff-invite'],
        ['org.update', org.orgId, org.orgId, 'corr-staff-patch'],
      ],
    );
    const byOrg = (await api.get(`/v1/admin/audit?orgId=${org.orgId}`)).body.items;
    assert.deepEqual(
      byOrg.map((e: { action: string }) => e.action),
      ['org.update'],
    );
    for (const bad of ['actorId=x', 'orgId=1', 'action=a%00b', 'limit=0']) {
      assert.equal((await api.get(`/v1/admin/audit?${bad}`)).status, 400, bad);
    }
    // The org's audit does not hold the staff actions of no org.
    const orgTrail = (await server.request('GET', `/v1/orgs/${org.orgId}/audit?limit=200`, { key: org.key })).body.items;
    assert.equal(
      orgTrail.some((e: { action: string }) => e.action === 'staff.invite'),
      false,
    );
  });

  test('a staff sign-in lasts no longer than 7 days: the session then signs no one in silently, and no token from it refreshes', async () => {
    const me = await signedIn();
    offsetMs += 6 * DAY_S * 1000;
    // Day 6: the browser's session signs staff in without a password, and a new refresh token comes with it.
    const later = await authorize(me.browser);
    assert.equal(later.askedToSignIn, false, 'signed in silently within 7 days');
    assert.ok(later.tokens?.refresh_token);
    assert.ok((await client.refreshTokenGrant(admin.config, me.refreshToken)).id_token, 'the first refresh token still works on day 6');

    offsetMs += 1 * DAY_S * 1000 + 60_000;
    // 7 days and a minute after signing in: asked to sign in again, and neither refresh token works.
    const expired = await authorize(me.browser);
    assert.equal(expired.askedToSignIn, true, 'the session ended 7 days after the sign-in');
    assert.match(expired.page, /name="password"/);
    for (const token of [me.refreshToken, later.tokens?.refresh_token as string]) {
      await assert.rejects(client.refreshTokenGrant(admin.config, token), (err: { error?: string }) => err.error === 'invalid_grant');
    }
    // Signing in again starts a new 7 days.
    nextStep();
    const again = await authorize(me.browser, me);
    assert.ok(again.tokens?.id_token);
  });

  test("a customer's sign-in session does not sign anyone in to the admin client; customers keep their 30 days", async () => {
    const org = await createOrg(server);
    const { accountsRepo } = await import('../src/store/repositories/accounts.ts');
    const account = await accountsRepo.byId(server.deps.database.db, org.ownerUserId);
    assert.ok(account);
    await accountsRepo.setPassword(server.deps.database.db, account, await server.deps.passwords.hash('a long test password'), false);
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const browser = new Browser();
    const { url, verifier } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    step = await browser.submit(step.url, { username: account.email, password: 'a long test password' }, app.redirectUri);
    assert.ok(step.callback);
    await client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: verifier });

    // Same browser, the admin client: the customer's session is not a staff sign-in.
    const staffTry = await authorize(browser);
    assert.equal(staffTry.askedToSignIn, true);
    // Their own session still signs them in silently after 8 days.
    offsetMs += 8 * DAY_S * 1000;
    const silent = await browser.follow((await authorizeUrl(app)).url, app.redirectUri);
    assert.ok(silent.callback, 'a customer session outlives 7 days');
  });
});
