// The identity provider against an attacker: TOTP guessing, throttles per address, what logout
// ends, equal hashing work on every sign-in path, anti-framing headers, hostile form values, and
// tokens kept out of the request log. One server; its clock is ours, so nothing here sleeps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import pino from 'pino';
import { decodeJwt } from 'jose';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { buildApp } from '../src/app.ts';
import { testPasswords } from './helpers/passwords.ts';
import { accountsRepo } from '../src/store/repositories/accounts.ts';
import { totpCode } from '../src/idp/totp.ts';
import { freePort, httpRequest, testEnv, type TestServer } from './helpers/server.ts';
import { createOrg, staffAccount, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { Browser, authorizeUrl, client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';

const LIMIT = 4;
const EXTENSION_CB = 'chrome-extension://abcdefghijklmnop/callback';
const MOBILE_CB = 'com.example.signatures:/oauth2/callback';

describe('identity provider hardening', () => {
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  let admin: OidcClient;
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  /** Moves our clock on: a minute refills every per-address bucket. */
  const advance = (ms = 61_000) => {
    offsetMs += ms;
  };
  let hashes = 0;
  const logLines: string[] = [];

  before(async () => {
    const port = await freePort();
    const config = loadConfig(
      testEnv({
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        STAGE: 'hard',
        SIGNIN_ATTEMPTS_PER_MINUTE: String(LIMIT),
        // The per-address buckets in memory, where they follow this test's clock (in Redis they
        // follow Redis' own): multi-instance.test.ts shows two instances sharing them in Redis.
        REDIS_URL: '',
        LOG_LEVEL: 'info',
        EXTENSION_CALLBACK_URLS: `${EXTENSION_CB},${MOBILE_CB}`,
      }),
    );
    const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => void logLines.push(line) });
    const deps = await createDeps(config, logger, {
      clock,
      passwords: {
        hash: testPasswords.hash,
        verify: (password, stored) => {
          hashes++;
          return testPasswords.verify(password, stored);
        },
      },
    });
    const fastify = await buildApp(deps);
    await fastify.listen({ port, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${port}`;
    server = {
      url,
      port,
      app: fastify,
      deps,
      request: (method, path, opts) => httpRequest(url, method, path, opts),
      close: async () => {
        await fastify.close();
        await deps.close();
      },
    };
    org = await createOrg(server);
    app = await oidcClient(config.authUrl, 'app-client-hard', config.appUrl);
    admin = await oidcClient(config.authUrl, 'admin-client-hard', config.adminUrl);
  });
  after(() => server.close());

  /** A user of the org with TOTP on; `code()` is the current code by our clock. */
  async function userWithTotp() {
    const u = await userWithPassword(server, org, 'member');
    const enrolment = await server.deps.signIn.enrolment(u.userId);
    assert.ok(enrolment);
    assert.ok(await server.deps.signIn.confirmEnrolment(u.userId, totpCode(enrolment.secret, clock().getTime())));
    // The enrolment used the current step: sign-ins start from the next one.
    advance(31_000);
    return { ...u, code: () => totpCode(enrolment.secret, clock().getTime()) };
  }

  /** Opens the sign-in page and submits the password: the browser is then on the next step's page. */
  async function toPassword(creds: { email: string; password: string }) {
    const browser = new Browser();
    const { url, verifier } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    assert.match(browser.lastPage, /name="password"/, browser.lastPage.slice(0, 300));
    step = await browser.submit(step.url, { username: creds.email, password: creds.password }, app.redirectUri);
    return { browser, step, verifier };
  }

  const failures = async (userId: string) => (await accountsRepo.byId(server.deps.database.db, userId))?.failedLogins;

  test('wrong TOTP codes lock the account across sign-ins; a right password does not clear them', async () => {
    const u = await userWithTotp();
    let last: Awaited<ReturnType<typeof toPassword>> | undefined;
    for (let i = 0; i < 5; i++) {
      advance();
      last = await toPassword({ email: u.email, password: u.password });
      assert.match(last.browser.lastPage, /name="otp"/, `sign-in ${i + 1} reaches the code step`);
      await last.browser.submit(last.step.url, { otp: '000000' }, app.redirectUri);
      assert.equal(last.browser.lastStatus, 401);
    }
    assert.equal(await failures(u.userId), 5);
    // Locked: the right code is refused now, and so is the right password.
    advance();
    const refused = await last!.browser.submit(last!.step.url, { otp: u.code() }, app.redirectUri);
    assert.equal(refused.callback, undefined, 'the right code is refused while locked');
    assert.equal(last!.browser.lastStatus, 401);
    const again = await toPassword({ email: u.email, password: u.password });
    assert.equal(again.browser.lastStatus, 401);
    assert.match(again.browser.lastPage, /Incorrect email or password/);
    // 15 minutes later the lock is over, and a finished sign-in clears the count.
    advance(15 * 60_000);
    const { tokens } = await signIn(app, { username: u.email, password: u.password, otp: u.code });
    assert.ok(tokens.id_token);
    assert.equal(await failures(u.userId), 0);
  });

  test('failures count within 15 minutes: older ones no longer add up to a lock', async () => {
    const u = await userWithPassword(server, org, 'member');
    advance();
    const browser = new Browser();
    const { url } = await authorizeUrl(app);
    let step = await browser.follow(url, app.redirectUri);
    for (let i = 0; i < 4; i++) {
      step = await browser.submit(step.url, { username: u.email, password: 'not the password' }, app.redirectUri);
      assert.equal(browser.lastStatus, 401);
    }
    advance(16 * 60_000);
    const { step: fifth, browser: b2 } = await toPassword({ email: u.email, password: 'still not it' });
    assert.equal(b2.lastStatus, 401, fifth.url);
    assert.equal(await failures(u.userId), 1, 'the fifth failure opened a new window');
    const { tokens } = await signIn(app, { username: u.email, password: u.password });
    assert.ok(tokens.id_token, 'not locked');
  });

  test('the code step shares the address throttle with the password step', async () => {
    const u = await userWithTotp();
    advance();
    const { browser, step } = await toPassword({ email: u.email, password: u.password }); // 1 of LIMIT
    for (let i = 1; i < LIMIT; i++) {
      await browser.submit(step.url, { otp: '000000' }, app.redirectUri);
      assert.equal(browser.lastStatus, 401);
    }
    const res = await browser.fetch(new URL(/action="([^"]+)"/.exec(browser.lastPage)![1]!, step.url).toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ otp: u.code() }).toString(),
    });
    assert.equal(res.status, 429, 'even the right code waits');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    assert.match(await res.text(), /Too many attempts/);
    assert.equal(await failures(u.userId), LIMIT - 1, 'a throttled attempt is no guess');
    advance();
    const done = await browser.submit(step.url, { otp: u.code() }, app.redirectUri);
    assert.ok(done.callback, browser.lastPage.slice(0, 300));
  });

  test('authorize is throttled per address, and what it stores lives 10 minutes', async () => {
    advance();
    const db = server.deps.database.db;
    // Interactions stored since the test began: on PostgreSQL other files share the table, and their
    // purges remove rows of theirs, so a count of the whole table can go down under this test.
    const interactionIds = async () => (await db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Interaction').execute()).map((r) => r.id);
    const existing = new Set(await interactionIds());
    const count = async () => (await interactionIds()).filter((id) => !existing.has(id)).length;
    const before = 0;
    let lastInteraction = '';
    for (let i = 0; i < LIMIT; i++) {
      const res = await fetch((await authorizeUrl(app)).url, { redirect: 'manual' });
      assert.equal(res.status, 303, `call ${i + 1}`);
      lastInteraction = new URL(res.headers.get('location') ?? '', server.url).pathname.split('/').at(-1) ?? '';
    }
    const refused = await fetch((await authorizeUrl(app)).url, { redirect: 'manual' });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(refused.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(await count(), before + LIMIT, 'a refused call stores nothing');
    // This test's own interaction (on PostgreSQL other files' rows, with other clocks, share the table).
    const newest = await db
      .selectFrom('oidc_payloads')
      .select('expires_at')
      .where('model', '=', 'Interaction')
      .where('id', '=', lastInteraction)
      .executeTakeFirstOrThrow();
    const lifeS = ((newest.expires_at as Date).getTime() - clock().getTime()) / 1000;
    assert.ok(lifeS > 500 && lifeS <= 600, `interaction lives ${lifeS} s`);
  });

  test('reloads that a session answers without a form are no attempts; a sign-in after twenty of them still works', async () => {
    advance();
    const u = await userWithPassword(server, org, 'member');
    const { browser } = await signIn(app, { username: u.email, password: u.password }); // 2 of LIMIT: authorize, password
    for (let i = 0; i < 20; i++) {
      const { url } = await authorizeUrl(app);
      const step = await browser.follow(url, app.redirectUri);
      assert.ok(step.callback, `reload ${i + 1}: ${step.status} ${browser.lastPage.slice(0, 200)}`);
    }
    // The same clock: the bucket still holds what the first sign-in left.
    const { tokens } = await signIn(app, { username: u.email, password: u.password });
    assert.ok(tokens.id_token, 'a fresh sign-in from the same address');
    // A form shown counts: this browser's session does not sign in to the admin client. The two
    // sign-ins took 2 of the LIMIT.
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const statuses: number[] = [];
    for (let i = 2; i <= LIMIT; i++) {
      const shown = await fetch((await authorizeUrl(admin)).url, { redirect: 'manual', headers: { cookie } });
      statuses.push(shown.status);
      if (shown.status === 429) assert.match(await shown.text(), /Too many sign-ins/);
    }
    assert.deepEqual(statuses, [...Array(LIMIT - 2).fill(303), 429]);
    advance();
    const reload = await browser.follow((await authorizeUrl(app)).url, app.redirectUri);
    assert.ok(reload.callback, 'a reload needs no token even from an address with none left');
  });

  test('a form of the sign-in refuses a post from another site (Origin or Sec-Fetch-Site): 403, nothing checked', async () => {
    advance();
    const u = await userWithPassword(server, org, 'member');
    const browser = new Browser();
    const first = await browser.follow((await authorizeUrl(app)).url, app.redirectUri);
    const action = new URL(/action="([^"]+)"/.exec(browser.lastPage)![1]!, first.url).toString();
    const post = (headers: Record<string, string>, fields: Record<string, string>) =>
      browser.fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    const before = hashes;
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of crossSite) {
      const res = await post(headers, { username: u.email, password: 'a wrong guess' });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.match(await res.text(), /another site/);
    }
    assert.equal(hashes, before, 'no password was checked');
    assert.equal(await failures(u.userId), 0);
    // The page's own origin, as a browser sends it, signs in.
    const own = await post(
      { origin: new URL(server.deps.config.authUrl).origin, 'sec-fetch-site': 'same-origin' },
      { username: u.email, password: u.password },
    );
    assert.equal(own.status, 303);

    // The code step and the provider's logout confirmation alike.
    const t = await userWithTotp();
    advance();
    const { browser: b2, step } = await toPassword({ email: t.email, password: t.password });
    const otpAction = new URL(/action="([^"]+)"/.exec(b2.lastPage)![1]!, step.url).toString();
    const otp = await b2.fetch(otpAction, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: `otp=${t.code()}`,
    });
    assert.equal(otp.status, 403);
    const confirm = await fetch(`${server.deps.config.authUrl}/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: 'xsrf=x&logout=yes',
    });
    assert.equal(confirm.status, 403);
    assert.match(await confirm.text(), /another site/);
  });

  test("the pages' forms post only here or to the clients' callbacks (form-action)", async () => {
    advance();
    const browser = new Browser();
    const step = await browser.follow((await authorizeUrl(app)).url, app.redirectUri);
    const csp = (await browser.fetch(step.url)).headers.get('content-security-policy') ?? '';
    const formAction = /form-action ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
    const { appUrl, adminUrl } = server.deps.config;
    assert.equal(formAction[0], "'self'", csp);
    for (const source of [new URL(appUrl).origin, new URL(adminUrl).origin, 'chrome-extension://abcdefghijklmnop', 'com.example.signatures:']) {
      assert.ok(formAction.includes(source), `${source} in ${csp}`);
    }
    const logout = await fetch(`${server.deps.config.authUrl}/logout?client_id=app-client-hard&logout_uri=https://elsewhere.example/`);
    assert.match(logout.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    assert.equal(logout.headers.get('referrer-policy'), 'same-origin', 'a browser sends its Origin on these forms');
  });

  test('/docs sends a CSP that forbids framing', async () => {
    for (const path of ['/docs', '/docs/static/index.html', '/docs/json']) {
      const res = await fetch(`${server.url}${path}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
      assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'(;|$)/, path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    }
  });

  test('every sign-in path hashes once: unknown email, wrong password, locked account', async () => {
    const u = await userWithPassword(server, org, 'member');
    const attempt = async (email: string, password: string) => {
      advance();
      const before = hashes;
      const { browser } = await toPassword({ email, password });
      assert.equal(browser.lastStatus, 401);
      return hashes - before;
    };
    assert.equal(await attempt('nobody-at-all@example.test', 'some password'), 1, 'unknown email');
    assert.equal(await attempt(u.email, 'wrong password'), 1, 'wrong password');
    for (let i = 0; i < 4; i++) await attempt(u.email, 'wrong password');
    assert.ok((await accountsRepo.byId(server.deps.database.db, u.userId))?.lockedUntil, 'locked now');
    assert.equal(await attempt(u.email, u.password), 1, 'locked account, right password');
    assert.equal(await attempt(u.email, 'wrong password'), 1, 'locked account, wrong password');
  });

  test('RP-initiated logout: our own pages, and the refresh token of the session ends', async () => {
    advance();
    const u = await userWithPassword(server, org, 'member');
    const { browser, tokens } = await signIn(app, { username: u.email, password: u.password });
    advance();
    const elsewhere = await signIn(app, { username: u.email, password: u.password });
    const auth = server.deps.config.authUrl;
    const page = await browser.fetch(
      `${auth}/logout?${new URLSearchParams({ id_token_hint: tokens.id_token as string, post_logout_redirect_uri: app.redirectUri, state: 's1' })}`,
    );
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const html = await page.text();
    assert.doesNotMatch(html, /googleapis|<script/i, 'no stock page of the library');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(xsrf, html.slice(0, 300));
    const done = await browser.fetch(`${auth}/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `${app.redirectUri}?state=s1`);
    await assert.rejects(client.refreshTokenGrant(app.config, tokens.refresh_token as string), (err: { error?: string }) => err.error === 'invalid_grant');
    const other = await client.refreshTokenGrant(app.config, elsewhere.tokens.refresh_token as string);
    assert.ok(other.id_token, "another device's session goes on");
    // The logout link held a live ID token: the request log has it redacted.
    const logged = logLines.filter((l) => l.includes('/logout?') && l.includes('id_token_hint'));
    assert.ok(logged.length > 0, 'the logout request was logged');
    assert.ok(
      logLines.every((l) => !l.includes(tokens.id_token as string)),
      'no ID token in the log',
    );
    assert.match(logged[0]!, /id_token_hint=\[redacted\]/);
  });

  test("Cognito's logout ends the session and its tokens; logout_uri only when it is a callback", async () => {
    advance();
    const u = await userWithPassword(server, org, 'member');
    const { browser, tokens } = await signIn(app, { username: u.email, password: u.password });
    const auth = server.deps.config.authUrl;
    const res = await browser.fetch(`${auth}/logout?${new URLSearchParams({ client_id: 'app-client-hard', logout_uri: app.redirectUri })}`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), app.redirectUri);
    await assert.rejects(client.refreshTokenGrant(app.config, tokens.refresh_token as string), (err: { error?: string }) => err.error === 'invalid_grant');
    advance();
    const { url } = await authorizeUrl(app);
    await browser.follow(url, app.redirectUri);
    assert.match(browser.lastPage, /name="password"/, 'signed out: the password is asked again');

    const evil = await fetch(`${auth}/logout?${new URLSearchParams({ client_id: 'app-client-hard', logout_uri: 'https://evil.example/' })}`, {
      redirect: 'manual',
    });
    assert.equal(evil.status, 200, 'never redirected to a URL that is not a callback');
    assert.equal(evil.headers.get('location'), null);
    assert.match(await evil.text(), /You are signed out/);
    const unknown = await fetch(`${auth}/logout?${new URLSearchParams({ client_id: 'nobody', logout_uri: app.redirectUri })}`, { redirect: 'manual' });
    assert.equal(unknown.status, 400);
  });

  test('sign-in pages: no framing, a CSP that allows exactly their own style', async () => {
    advance();
    const browser = new Browser();
    const { url } = await authorizeUrl(app);
    const step = await browser.follow(url, app.redirectUri);
    const res = await browser.fetch(step.url);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    const style = /<style>([\s\S]*?)<\/style>/.exec(await res.text())?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    assert.ok(csp.includes(`style-src 'sha256-${hash}'`), csp);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
  });

  test('NULs and oversized values in the forms: the page again with 400, never a 500', async () => {
    const u = await userWithTotp();
    advance();
    const browser = new Browser();
    const { url } = await authorizeUrl(app);
    const first = await browser.follow(url, app.redirectUri);
    for (const fields of [
      { username: 'a\0b@example.test', password: 'x' },
      { username: u.email, password: 'pass\0word' },
      { username: `${'a'.repeat(5000)}@example.test`, password: 'x' },
    ]) {
      advance();
      await browser.submit(first.url, fields, app.redirectUri);
      assert.equal(browser.lastStatus, 400, JSON.stringify(fields).slice(0, 60));
      assert.match(browser.lastPage, /name="password"/, 'the sign-in page again');
    }
    assert.equal(await failures(u.userId), 0, 'refused forms are no attempts');
    // A uid in the address that is not this browser's interaction, with or without a NUL.
    for (const uid of ['%00', 'x'.repeat(3000), 'someone-else']) {
      const res = await browser.fetch(`${server.deps.config.authUrl}/interaction/${uid}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: u.email, password: u.password }).toString(),
      });
      // An address longer than the router takes is not found (404); others are this page's 400.
      assert.equal(res.status, uid.length > 100 ? 404 : 400, uid.slice(0, 20));
    }
    advance();
    const { browser: b2, step } = await toPassword({ email: u.email, password: u.password });
    assert.match(b2.lastPage, /name="otp"/);
    for (const otp of ['12\u000034', '1'.repeat(5000)]) {
      await b2.submit(step.url, { otp }, app.redirectUri);
      assert.ok([400, 401].includes(b2.lastStatus), `otp ${b2.lastStatus}`);
      assert.match(b2.lastPage, /name="otp"/);
    }
    // The new-password step after a temporary password.
    const email = `temp-${Date.now()}@example.test`;
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email, temporaryPassword: 'temporary password 1' } });
    assert.equal(created.status, 201, created.text);
    advance();
    const { browser: b3, step: s3 } = await toPassword({ email, password: 'temporary password 1' });
    assert.match(b3.lastPage, /name="new_password"/);
    for (const newPassword of ['a long new pass\u0000word', 'p'.repeat(5000)]) {
      await b3.submit(s3.url, { new_password: newPassword }, app.redirectUri);
      assert.equal(b3.lastStatus, 400);
      assert.match(b3.lastPage, /name="new_password"/);
    }
  });

  test("a NUL in authorize's state is invalid_request; in a token request invalid_grant; never a 500", async () => {
    advance();
    const { url } = await authorizeUrl(app, { state: 'a\0b' });
    const res = await fetch(url, { redirect: 'manual' });
    assert.ok(res.status < 500, `authorize ${res.status}`);
    const location = res.headers.get('location');
    if (location) assert.equal(new URL(location).searchParams.get('error'), 'invalid_request');
    else assert.match(await res.text(), /invalid_request/);
    const token = await fetch(`${server.deps.config.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app-client-hard', refresh_token: 'a\0b' }).toString(),
    });
    assert.equal(token.status, 400);
    assert.equal(((await token.json()) as { error: string }).error, 'invalid_grant');
  });

  test('the request log redacts codes, tokens and JWT-looking values in URLs', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    await fetch(`${server.url}/v1/orgs/x/users?code=secret-code-1&refresh_token=secret-rt-2&q=${jwt}`);
    await fetch(`${server.url}/v1/orgs/${jwt}`);
    const text = logLines.join('\n');
    for (const secret of ['secret-code-1', 'secret-rt-2', jwt]) assert.ok(!text.includes(secret), secret);
    assert.match(text, /code=\[redacted\]&refresh_token=\[redacted\]&q=\[redacted\]/);
    assert.match(text, /"url":"\/v1\/orgs\/\[redacted\]"/);
  });

  test('discovery and redirects derive from AUTH_URL whatever X-Forwarded-Host says', async () => {
    const auth = server.deps.config.authUrl;
    const spoof = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-port': '8443' };
    const meta = (await (await fetch(`${auth}/.well-known/openid-configuration`, { headers: spoof })).json()) as Record<string, unknown>;
    for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'end_session_endpoint', 'jwks_uri']) {
      assert.ok(String(meta[key]).startsWith(auth), `${key}: ${meta[key]}`);
    }
    advance();
    const res = await fetch((await authorizeUrl(app)).url, { redirect: 'manual', headers: spoof });
    assert.equal(res.status, 303);
    assert.ok(new URL(res.headers.get('location') as string, auth).toString().startsWith(auth), res.headers.get('location') ?? '');
  });

  test('ID tokens carry auth_time and cognito:username', async () => {
    advance();
    const u = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: u.email, password: u.password });
    const claims = decodeJwt(tokens.id_token as string);
    assert.equal(claims['cognito:username'], u.userId);
    assert.equal(typeof claims.auth_time, 'number');
    // By the service's clock (this test's, which the tests above moved on).
    assert.ok(Math.abs((claims.auth_time as number) - clock().getTime() / 1000) < 120);
  });

  test('callbacks of any scheme: a browser extension and a mobile app sign in', async () => {
    const u = await userWithPassword(server, org, 'member');
    for (const callback of [EXTENSION_CB, MOBILE_CB]) {
      advance();
      const c = { config: app.config, redirectUri: callback };
      const { tokens, callback: reached } = await signIn(c, { username: u.email, password: u.password });
      assert.ok(reached.toString().startsWith(callback), reached.toString());
      assert.equal(decodeJwt(tokens.id_token as string).sub, u.userId);
    }
    const other = await fetch((await authorizeUrl({ config: app.config, redirectUri: 'chrome-extension://someoneelse/callback' })).url, { redirect: 'manual' });
    assert.equal(other.status, 400, 'an unregistered one is still refused');
  });

  test('the admin client grants custom:role=super-admin to staff; the customer client does not', async () => {
    advance();
    const staff = await staffAccount(server);
    const browser = new Browser();
    const scope = 'openid email profile aws.cognito.signin.user.admin custom:role=super-admin';
    const { url, verifier } = await authorizeUrl(admin, { scope });
    let step = await browser.follow(url, admin.redirectUri);
    step = await browser.submit(step.url, { username: staff.email, password: staff.password }, admin.redirectUri);
    const secret = /data-secret>([A-Z2-7]+)</.exec(browser.lastPage)?.[1];
    assert.ok(secret, browser.lastPage.slice(0, 300));
    step = await browser.submit(step.url, { otp: totpCode(secret, clock().getTime()) }, admin.redirectUri);
    assert.ok(step.callback, browser.lastPage.slice(0, 300));
    const tokens = await client.authorizationCodeGrant(admin.config, step.callback, { pkceCodeVerifier: verifier });
    assert.ok(String(tokens.scope).split(' ').includes('custom:role=super-admin'), String(tokens.scope));
    advance();
    const refused = await fetch((await authorizeUrl(app, { scope })).url, { redirect: 'manual' });
    const location = refused.headers.get('location');
    assert.ok(location, `status ${refused.status}`);
    assert.equal(new URL(location).searchParams.get('error'), 'invalid_scope');
  });
});
