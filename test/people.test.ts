// People get in (docs/api.md, "People getting in"): an admin adds a person, the person reads a real mail, opens the link,
// chooses a password and is signed in through the real PKCE flow; links that expired, were used or
// were replaced give a clear page; "Forgot your password?" answers the same for every address, and
// a reset ends the old refresh tokens; one's own password; seats; verified addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { createOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { Browser, authorizeUrl, client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';
import { waitFor } from './helpers/wait.ts';

const FAST_JOBS = { JOBS_POLL_MS: '25', JOBS_RETRY_BASE_MS: '100', JOBS_RETRY_MAX_MS: '300' };
const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const INVITATION_LINK = /https?:\/\/\S+\/invitation\/[A-Za-z0-9_-]{43}/;
const RESET_LINK = /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]{43}/;
const RESET = /^Reset your Signature Service password$/;

/** Fills the link page's form: answers the page that follows, or the stop at APP_URL. */
async function choosePassword(browser: Browser, link: string, password: string, confirm = password, appUrl: string) {
  const page = await browser.follow(link, appUrl);
  assert.equal(page.status, 200, browser.lastPage.slice(0, 300));
  return browser.submit(link, { password, passwordConfirm: confirm }, appUrl);
}

/** After a link was used on this browser: the dashboard's sign-in completes without a password page. */
async function silentSignIn(app: OidcClient, browser: Browser) {
  const { url, verifier } = await authorizeUrl(app);
  const step = await browser.follow(url, app.redirectUri);
  assert.ok(step.callback, `signed in without a form (got ${step.status}: ${browser.lastPage.slice(0, 200)})`);
  return client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: verifier });
}

describe('people get in, with mail', () => {
  let smtp: TestSmtp;
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  let appUrl: string;
  before(async () => {
    smtp = await startSmtp();
    server = await startServer({ SMTP_URL: smtp.url, RESET_MAILS_PER_ADDRESS_PER_HOUR: '2', ...FAST_JOBS });
    org = await createOrg(server, { name: 'Acme Signatures' });
    const { authUrl, stage } = server.deps.config;
    appUrl = server.deps.config.appUrl;
    app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });

  test('invite → mail → link → password → signed in through PKCE, the address verified; then the link is used up', async () => {
    const email = address('ada');
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email, name: 'Ada Lovelace' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.status, 'invited');
    assert.equal(created.body.emailVerified, false);
    assert.equal(created.body.invitationUrl, undefined, 'with SMTP the link goes only to the mailbox');

    const mail = await smtp.waitFor(email);
    assert.match(mail.subject, /Acme Signatures/);
    assert.match(mail.text, /Ada Lovelace/);
    assert.match(mail.html, /Acme Signatures/);
    const link = INVITATION_LINK.exec(mail.text)?.[0];
    assert.ok(link, mail.text);
    assert.ok(link.startsWith(`${server.deps.config.authUrl}/invitation/`));

    const browser = new Browser();
    const page = await browser.follow(link, appUrl);
    assert.equal(page.status, 200);
    assert.match(browser.lastPage, /name="password"/);
    assert.match(browser.lastPage, /name="passwordConfirm"/);
    assert.match(browser.lastPage, /Acme Signatures/);
    const res = await browser.fetch(link);
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);

    const done = await browser.submit(link, { password: 'ada chose this one', passwordConfirm: 'ada chose this one' }, appUrl);
    assert.equal(done.url, appUrl, 'accepting leads to the dashboard');
    const tokens = await silentSignIn(app, browser);
    const claims = decodeJwt(tokens.id_token as string);
    assert.equal(claims.sub, created.body.userId);
    assert.equal(claims.email_verified, true);

    const user = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { token: tokens.id_token as string });
    assert.equal(user.status, 200);
    assert.equal(user.body.status, 'active');
    assert.equal(user.body.emailVerified, true);
    // The user reads their own record with their own token: "an admin added me" → "I am signed in".
    assert.ok((await signIn(app, { username: email, password: 'ada chose this one' })).tokens.id_token);

    // The link works once: opening it again says so, clearly.
    const reused = await new Browser().follow(link, appUrl);
    assert.equal(reused.status, 410);
    assert.match(reused.page ?? '', /already been used/);
  });

  test('bad input on the invitation page: short or different passwords are refused and change nothing', async () => {
    const email = address('bad');
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email } });
    const link = INVITATION_LINK.exec((await smtp.waitFor(email)).text)?.[0] as string;
    const browser = new Browser();
    await browser.follow(link, appUrl);
    const short = await browser.submit(link, { password: 'short', passwordConfirm: 'short' }, appUrl);
    assert.equal(short.status, 400);
    assert.match(browser.lastPage, /at least 12 characters/);
    await browser.follow(link, appUrl);
    const differ = await browser.submit(link, { password: 'a long password one', passwordConfirm: 'a long password two' }, appUrl);
    assert.equal(differ.status, 400);
    assert.match(browser.lastPage, /differ/);
    const nul = await browser.fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=abc%00defghijklmn&passwordConfirm=abc%00defghijklmn',
    });
    assert.equal(nul.status, 400);
    const user = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key });
    assert.equal(user.body.status, 'invited', 'nothing changed');
    assert.equal((await new Browser().follow(link, appUrl)).status, 200, 'the link still works');
  });

  test('an expired, a replaced, an unknown and a malformed link each get a clear page', async () => {
    const email = address('late');
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email } });
    const first = INVITATION_LINK.exec((await smtp.waitFor(email)).text)?.[0] as string;
    const resent = await server.request('POST', `/v1/orgs/${org.orgId}/users/${created.body.userId}/invitation`, { key: org.key });
    assert.equal(resent.status, 200, resent.text);
    assert.ok(resent.body.jobId);
    assert.equal(resent.body.invitationUrl, undefined);
    const job = await waitFor(async () => {
      const j = await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${resent.body.jobId}`, { key: org.key });
      return j.body.state === 'succeeded' ? j : undefined;
    }, 'the mail job');
    assert.equal(job.body.kind, 'mail.send');
    const second = INVITATION_LINK.exec((await smtp.waitFor(email, 2)).text)?.[0] as string;
    assert.notEqual(first, second);

    const voided = await new Browser().follow(first, appUrl);
    assert.equal(voided.status, 410);
    assert.match(voided.page ?? '', /no longer works/);

    // The second link expires (its time passes in the database).
    const hash = (await import('node:crypto'))
      .createHash('sha256')
      .update(second.split('/').pop() as string)
      .digest('hex');
    await server.deps.database.db
      .updateTable('account_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hash)
      .execute();
    const expired = await new Browser().follow(second, appUrl);
    assert.equal(expired.status, 410);
    assert.match(expired.page ?? '', /expired/);
    const expiredPost = await new Browser().fetch(second, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=a+long+password+x&passwordConfirm=a+long+password+x',
    });
    assert.equal(expiredPost.status, 410);

    const base = server.deps.config.authUrl;
    const unknown = await new Browser().follow(`${base}/invitation/${'A'.repeat(43)}`, appUrl);
    assert.equal(unknown.status, 404);
    const malformed = await new Browser().follow(`${base}/invitation/not-a-token`, appUrl);
    assert.equal(malformed.status, 400);
    assert.match(malformed.page ?? '', /not a valid invitation link/);
    const resetMalformed = await new Browser().follow(`${base}/reset-password/%27%3Cscript%3E`, appUrl);
    assert.equal(resetMalformed.status, 400);
    assert.doesNotMatch(resetMalformed.page ?? '', /<script>/);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key })).body.status, 'invited');
  });

  test('forgot password: the same answer for a known and an unknown address; the reset ends the old refresh token', async () => {
    const member = await userWithPassword(server, org, 'member', 'the old password 1');
    const before = await signIn(app, { username: member.email, password: member.password });
    const oldRefresh = before.tokens.refresh_token as string;
    assert.ok(oldRefresh);

    const forgot = `${server.deps.config.authUrl}/forgot-password`;
    const ask = async (email: string) => {
      const b = new Browser();
      const page = await b.follow(forgot, appUrl);
      assert.equal(page.status, 200);
      return b.submit(forgot, { email }, appUrl).then((r) => ({ status: r.status, page: b.lastPage }));
    };
    const unknownAddress = address('nobody');
    const [known, unknown] = [await ask(member.email), await ask(unknownAddress)];
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    assert.equal(known.page, unknown.page, 'word for word the same');

    const mail = await smtp.waitFor(member.email, 1, { subject: RESET });
    assert.match(mail.text, /Acme Signatures/);
    const link = RESET_LINK.exec(mail.text)?.[0] as string;
    assert.ok(link);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.to(unknownAddress).length, 0);
    assert.equal(smtp.to(member.email, RESET).length, 1);

    const browser = new Browser();
    const done = await choosePassword(browser, link, 'the new password 2', 'the new password 2', appUrl);
    assert.equal(done.url, appUrl);
    const tokens = await silentSignIn(app, browser);
    assert.equal(decodeJwt(tokens.id_token as string).email_verified, true);
    await assert.rejects(client.refreshTokenGrant(app.config, oldRefresh), 'the old refresh token no longer works');
    await assert.rejects(signIn(app, { username: member.email, password: 'the old password 1' }));
    assert.ok((await signIn(app, { username: member.email, password: 'the new password 2' })).tokens.id_token);
    assert.equal((await new Browser().follow(link, appUrl)).status, 410, 'one use');
  });

  test('a locked account can reset its password; the per-address limit stops further mails, with the same answer', async () => {
    const member = await userWithPassword(server, org, 'member', 'locked out password');
    for (let i = 0; i < 5; i++) await assert.rejects(signIn(app, { username: member.email, password: `wrong guess ${i}` }));
    await assert.rejects(signIn(app, { username: member.email, password: 'locked out password' }), 'locked');

    const forgot = `${server.deps.config.authUrl}/forgot-password`;
    const ask = async () => {
      const b = new Browser();
      await b.follow(forgot, appUrl);
      const r = await b.submit(forgot, { email: member.email.toUpperCase() }, appUrl);
      return { status: r.status, page: b.lastPage };
    };
    const first = await ask();
    const mail = await smtp.waitFor(member.email, 1, { subject: RESET });
    const link = RESET_LINK.exec(mail.text)?.[0] as string;
    const browser = new Browser();
    await choosePassword(browser, link, 'unlocked password 9', 'unlocked password 9', appUrl);
    assert.ok((await signIn(app, { username: member.email, password: 'unlocked password 9' })).tokens.id_token, 'unlocked by the reset');

    // RESET_MAILS_PER_ADDRESS_PER_HOUR is 2 here: a second mail, then none.
    assert.deepEqual(await ask(), first);
    await smtp.waitFor(member.email, 2, { subject: RESET });
    assert.deepEqual(await ask(), first);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(smtp.to(member.email, RESET).length, 2, 'no third mail within the hour');
  });

  test('a malformed address on the forgot-password form is a clear 400', async () => {
    const forgot = `${server.deps.config.authUrl}/forgot-password`;
    const b = new Browser();
    await b.follow(forgot, appUrl);
    const r = await b.submit(forgot, { email: 'not an address' }, appUrl);
    assert.equal(r.status, 400);
    assert.match(b.lastPage, /Enter an email address/);
  });

  test("changing an invited user's address voids the link and invites the new address; emailVerified follows the address", async () => {
    const email = address('move');
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email } });
    const oldLink = INVITATION_LINK.exec((await smtp.waitFor(email)).text)?.[0] as string;
    const moved = address('moved');
    const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key, body: { version: 1, email: moved } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await new Browser().follow(oldLink, appUrl)).status, 410);
    const newLink = INVITATION_LINK.exec((await smtp.waitFor(moved)).text)?.[0] as string;
    const browser = new Browser();
    await choosePassword(browser, newLink, 'moved password 11', 'moved password 11', appUrl);
    const verified = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key });
    assert.equal(verified.body.emailVerified, true);
    const again = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, {
      key: org.key,
      body: { version: verified.body.version, email: address('third') },
    });
    assert.equal(again.body.emailVerified, false, 'a new address is not proved');
    assert.equal(again.body.status, 'active');
  });

  test('forgot password queues its lookup as a job whatever the address; the job forgets the address once done', async () => {
    const member = await userWithPassword(server, org, 'member', 'a queued reset 1');
    const db = server.deps.database.db;
    const since = new Date(Date.now() - 1000);
    const forgot = `${server.deps.config.authUrl}/forgot-password`;
    const post = (email: string) =>
      fetch(forgot, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email }) });
    const [known, unknown] = [await post(member.email), await post(address('nobody'))];
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    assert.equal(await known.text(), await unknown.text());
    await smtp.waitFor(member.email, 1, { subject: RESET });
    // Both ran on the queue's worker (on PostgreSQL other files' jobs share the table: at least ours).
    const jobs = await waitFor(async () => {
      const rows = await db.selectFrom('jobs').selectAll().where('kind', '=', 'people.reset-request').where('created_at', '>=', since).execute();
      return rows.length >= 2 && rows.every((r) => r.state === 'succeeded') ? rows : undefined;
    }, 'the two reset-request jobs');
    for (const job of jobs) {
      assert.equal(job.org_id, null);
      assert.deepEqual(job.payload, {}, 'the typed address is not kept');
    }
  });

  test('the forms of links and of forgot-password refuse a post from another site: 403, the link unused, no mail', async () => {
    const email = address('csrf');
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email } });
    const link = INVITATION_LINK.exec((await smtp.waitFor(email)).text)?.[0] as string;
    const member = await userWithPassword(server, org, 'member', 'csrf old password');
    const forgot = `${server.deps.config.authUrl}/forgot-password`;
    const form = (url: string, headers: Record<string, string>, fields: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
    const attacker = 'attacker password 1';
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of crossSite) {
      const accept = await form(link, headers, { password: attacker, passwordConfirm: attacker });
      assert.equal(accept.status, 403, JSON.stringify(headers));
      assert.equal(accept.headers.get('set-cookie'), null, 'no session started');
      assert.match(await accept.text(), /another site/);
      assert.equal((await form(forgot, headers, { email: member.email })).status, 403);
    }
    assert.equal(
      (await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key })).body.status,
      'invited',
      'the invitation is unused',
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.to(member.email, RESET).length, 0, 'no reset mail');

    // A reset link alike; the page's own origin uses it.
    assert.equal((await form(forgot, { origin: new URL(forgot).origin }, { email: member.email })).status, 200);
    const resetLink = RESET_LINK.exec((await smtp.waitFor(member.email, 1, { subject: RESET })).text)?.[0] as string;
    assert.equal((await form(resetLink, { origin: 'null' }, { password: attacker, passwordConfirm: attacker })).status, 403);
    assert.equal((await new Browser().follow(resetLink, appUrl)).status, 200, 'the reset link still works');
    const own = await form(
      resetLink,
      { origin: new URL(resetLink).origin, 'sec-fetch-site': 'same-origin' },
      { password: 'csrf new password', passwordConfirm: 'csrf new password' },
    );
    assert.equal(own.status, 303);
    assert.ok((await signIn(app, { username: member.email, password: 'csrf new password' })).tokens.id_token);
    // A link's page, like every page of AUTH_URL: its forms post here (or to the apps).
    assert.match((await fetch(forgot)).headers.get('content-security-policy') ?? '', /form-action 'self'/);
  });
});

describe('people get in, without SMTP_URL', () => {
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
    const { authUrl, stage, appUrl } = server.deps.config;
    app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
  });
  after(() => server.close());

  test('admins read invitationUrl while the user is invited; members never; resend voids the old link', async () => {
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: address('nomail'), name: 'No Mail' } });
    assert.equal(created.status, 201);
    const url = created.body.invitationUrl as string;
    assert.match(url, INVITATION_LINK);
    const read = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key });
    assert.equal(read.body.invitationUrl, url);
    const list = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key });
    assert.equal(list.body.items.find((u: { userId: string }) => u.userId === created.body.userId).invitationUrl, url);

    const member = await userWithPassword(server, org, 'member');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const asMember = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { token: tokens.id_token as string });
    assert.equal(asMember.status, 200);
    assert.equal(asMember.body.invitationUrl, undefined);
    const memberResend = await server.request('POST', `/v1/orgs/${org.orgId}/users/${created.body.userId}/invitation`, { token: tokens.id_token as string });
    assert.equal(memberResend.status, 403);

    const resent = await server.request('POST', `/v1/orgs/${org.orgId}/users/${created.body.userId}/invitation`, { key: org.key });
    assert.equal(resent.status, 200);
    assert.equal(resent.body.jobId, null);
    assert.notEqual(resent.body.invitationUrl, url);
    assert.equal((await new Browser().follow(url, app.redirectUri)).status, 410);
    const browser = new Browser();
    await choosePassword(browser, resent.body.invitationUrl, 'handed over pw 1', 'handed over pw 1', app.redirectUri);
    const after = await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.body.userId}`, { key: org.key });
    assert.equal(after.body.status, 'active');
    assert.equal(after.body.invitationUrl, undefined);
    const again = await server.request('POST', `/v1/orgs/${org.orgId}/users/${created.body.userId}/invitation`, { key: org.key });
    assert.equal(again.status, 409);
    // Nothing is ever queued without SMTP_URL.
    const jobs = await server.deps.database.db.selectFrom('jobs').select('id').where('org_id', '=', org.orgId).execute();
    assert.equal(jobs.length, 0);
  });

  test("an admin never reads an owner's invitation link; an owner does", async () => {
    const { authUrl, stage, appUrl } = server.deps.config;
    void authUrl;
    void stage;
    void appUrl;
    const admin = await userWithPassword(server, org, 'admin');
    const owner = await userWithPassword(server, org, 'owner');
    const adminToken = (await signIn(app, { username: admin.email, password: admin.password })).tokens.id_token as string;
    const ownerToken = (await signIn(app, { username: owner.email, password: owner.password })).tokens.id_token as string;
    const invitedOwner = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { token: ownerToken, body: { email: address('owner2'), role: 'owner' } });
    assert.equal(invitedOwner.status, 201);
    assert.ok(invitedOwner.body.invitationUrl);
    const asAdmin = await server.request('GET', `/v1/orgs/${org.orgId}/users/${invitedOwner.body.userId}`, { token: adminToken });
    assert.equal(asAdmin.body.invitationUrl, undefined);
    assert.equal((await server.request('POST', `/v1/orgs/${org.orgId}/users/${invitedOwner.body.userId}/invitation`, { token: adminToken })).status, 403);
    const asOwner = await server.request('GET', `/v1/orgs/${org.orgId}/users/${invitedOwner.body.userId}`, { token: ownerToken });
    assert.equal(asOwner.body.invitationUrl, invitedOwner.body.invitationUrl);
  });

  test('an invited user takes a seat', async () => {
    const small = await createOrg(server, { seats: 2 });
    const invited = await server.request('POST', `/v1/orgs/${small.orgId}/users`, { key: small.key, body: { email: address('seat') } });
    assert.equal(invited.status, 201);
    assert.equal(invited.body.status, 'invited');
    const status = await server.request('GET', `/v1/orgs/${small.orgId}/plan-status`, { key: small.key });
    assert.equal(status.body.seats.used, 2);
    const third = await server.request('POST', `/v1/orgs/${small.orgId}/users`, { key: small.key, body: { email: address('seat3') } });
    assert.equal(third.status, 402);
  });

  test('own password: only the user, with the current password; the change ends the old refresh token', async () => {
    const member = await userWithPassword(server, org, 'member', 'my current password');
    const other = await userWithPassword(server, org, 'admin', 'admin current password');
    const { tokens } = await signIn(app, { username: member.email, password: member.password });
    const idToken = tokens.id_token as string;
    const path = `/v1/orgs/${org.orgId}/users/${member.userId}/password`;

    const wrong = await server.request('POST', path, { token: idToken, body: { currentPassword: 'not my password', newPassword: 'my brand new password' } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.details.field, 'currentPassword');
    const short = await server.request('POST', path, { token: idToken, body: { currentPassword: member.password, newPassword: 'short' } });
    assert.equal(short.status, 400);
    assert.equal(short.body.error.details.field, 'newPassword');
    const same = await server.request('POST', path, { token: idToken, body: { currentPassword: member.password, newPassword: member.password } });
    assert.equal(same.status, 400);
    const extra = await server.request('POST', path, {
      token: idToken,
      body: { currentPassword: member.password, newPassword: 'my brand new password', role: 'owner' },
    });
    assert.equal(extra.status, 400);
    assert.equal(
      (await server.request('POST', path, { key: org.key, body: { currentPassword: member.password, newPassword: 'my brand new password' } })).status,
      403,
      'not an API key',
    );
    const adminToken = (await signIn(app, { username: other.email, password: other.password })).tokens.id_token as string;
    assert.equal(
      (await server.request('POST', path, { token: adminToken, body: { currentPassword: member.password, newPassword: 'my brand new password' } })).status,
      403,
      'not an admin for someone else',
    );
    assert.ok((await signIn(app, { username: member.email, password: member.password })).tokens.id_token, 'nothing changed so far');

    const ok = await server.request('POST', path, { token: idToken, body: { currentPassword: member.password, newPassword: 'my brand new password' } });
    assert.equal(ok.status, 204, ok.text);
    await assert.rejects(client.refreshTokenGrant(app.config, tokens.refresh_token as string));
    await assert.rejects(signIn(app, { username: member.email, password: member.password }));
    assert.ok((await signIn(app, { username: member.email, password: 'my brand new password' })).tokens.id_token);
  });

  test("an API key's refusal to set an owner's temporaryPassword names that field", async () => {
    const owner = await server.request('GET', `/v1/orgs/${org.orgId}/users/${org.ownerUserId}`, { key: org.key });
    const res = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${org.ownerUserId}`, {
      key: org.key,
      body: { version: owner.body.version, temporaryPassword: 'a temporary password' },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.details.field, 'temporaryPassword');
  });
});

describe('forgot password: the per-IP limit', () => {
  test('past SIGNIN_ATTEMPTS_PER_MINUTE posts from one address get 429 with Retry-After; showing the page is no attempt', async () => {
    // A stage of its own: on Redis (the PostgreSQL pass), its buckets are no other server's.
    const server = await startServer({ SIGNIN_ATTEMPTS_PER_MINUTE: '3', STAGE: `fp${randomUUID().slice(0, 8)}` });
    try {
      const forgot = `${server.deps.config.authUrl}/forgot-password`;
      for (let i = 0; i < 5; i++) {
        const page = await fetch(forgot);
        assert.equal(page.status, 200, `showing the page, ${i + 1}`);
        await page.text();
      }
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(forgot, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${address('ip')}` });
        statuses.push(res.status);
        if (res.status === 429) assert.ok(res.headers.get('retry-after'));
        await res.text();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    } finally {
      await server.close();
    }
  });
});
