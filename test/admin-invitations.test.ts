// Invitations the staff send (docs/api.md, "Staff" and "People getting in"): an org created
// through POST /v1/admin/orgs invites its owner, and POST /v1/admin/staff invites a staff member,
// each by a mail that reaches a real SMTP server; the staff member's link sets a password and
// leads to the admin app, whose first sign-in enrols TOTP. Without SMTP_URL, the answers carry the
// links instead.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { staffToken } from './helpers/payments.ts';
import { Browser, authorizeUrl, client, oidcClient } from './helpers/browser.ts';
import { totpCode } from '../src/idp/totp.ts';

const FAST_JOBS = { JOBS_POLL_MS: '25', JOBS_RETRY_BASE_MS: '100', JOBS_RETRY_MAX_MS: '300' };
const LINK = /https?:\/\/\S+\/invitation\/[A-Za-z0-9_-]{43}/;
const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.test`;

describe('staff invitations with mail', () => {
  let smtp: TestSmtp;
  let server: TestServer;
  let token: string;
  before(async () => {
    smtp = await startSmtp();
    server = await startServer({ SMTP_URL: smtp.url, ...FAST_JOBS });
    token = await staffToken(server);
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });

  test('creating an org through the staff API invites its owner by mail; the link works', async () => {
    const ownerEmail = address('owner');
    const res = await server.request('POST', '/v1/admin/orgs', { token, body: { name: 'Invited Owner Ltd', ownerEmail, ownerName: 'Olive Owner' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.ownerInvitationUrl, undefined, 'with SMTP the link goes only to the mailbox');
    const mail = await smtp.waitFor(ownerEmail);
    assert.match(mail.subject, /Invited Owner Ltd/);
    assert.match(mail.text, /Olive Owner/);
    const link = LINK.exec(mail.text)?.[0];
    assert.ok(link, mail.text);
    const browser = new Browser();
    await browser.follow(link, server.deps.config.appUrl);
    assert.match(browser.lastPage, /Invited Owner Ltd/);
    const done = await browser.submit(link, { password: 'olive chose this', passwordConfirm: 'olive chose this' }, server.deps.config.appUrl);
    assert.equal(done.url, server.deps.config.appUrl);
    const owner = await server.request('GET', `/v1/orgs/${res.body.orgId}/users/${res.body.ownerUserId}`, { key: res.body.apiKey.key });
    assert.equal(owner.body.status, 'active');
  });

  test('a staff invitation: mail → link → password → the admin app, whose first sign-in enrols TOTP', async () => {
    const email = address('grace');
    const res = await server.request('POST', '/v1/admin/staff', { token, body: { email, name: 'Grace Hopper' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'invited');
    assert.equal(res.body.invitationUrl, undefined);
    const mail = await smtp.waitFor(email);
    assert.match(mail.subject, /staff of Signature Service/);
    assert.match(mail.text, /Grace Hopper/);
    assert.match(mail.text, /authenticator/);
    const link = LINK.exec(mail.text)?.[0];
    assert.ok(link, mail.text);

    const { adminUrl, authUrl, stage } = server.deps.config;
    const browser = new Browser();
    await browser.follow(link, adminUrl);
    assert.match(browser.lastPage, /staff of Signature Service/);
    const done = await browser.submit(link, { password: 'grace chose this', passwordConfirm: 'grace chose this' }, adminUrl);
    assert.equal(done.url, adminUrl, 'accepting leads to the admin app');
    const listed = (await server.request('GET', '/v1/admin/staff?status=active&limit=200', { token })).body.items;
    assert.ok(
      listed.some((s: { userId: string }) => s.userId === res.body.userId),
      'active once the password is chosen',
    );

    // No session was started by the link: the admin client asks for the password, then enrols TOTP.
    const admin = await oidcClient(authUrl, `admin-client-${stage}`, adminUrl);
    const { url, verifier } = await authorizeUrl(admin);
    let step = await browser.follow(url, adminUrl);
    assert.equal(step.callback, undefined);
    step = await browser.submit(step.url, { username: email, password: 'grace chose this' }, adminUrl);
    const secret = /data-secret>([A-Z2-7]+)</.exec(browser.lastPage)?.[1];
    assert.ok(secret, browser.lastPage.slice(0, 300));
    step = await browser.submit(step.url, { otp: totpCode(secret) }, adminUrl);
    assert.ok(step.callback, browser.lastPage.slice(0, 300));
    const tokens = await client.authorizationCodeGrant(admin.config, step.callback, { pkceCodeVerifier: verifier });
    const me = await server.request('GET', '/v1/admin/staff?limit=200', { token: tokens.id_token as string });
    assert.equal(me.status, 200, 'the new staff member uses the staff API');
    assert.equal(me.body.items.find((s: { userId: string }) => s.userId === res.body.userId).mfaEnabled, true);
  });
});

describe('staff invitations without mail', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startServer();
    token = await staffToken(server);
  });
  after(() => server.close());

  test('the answers carry the links to hand over: the owner’s and the staff member’s', async () => {
    const org = await server.request('POST', '/v1/admin/orgs', { token, body: { name: 'No Mail Ltd', ownerEmail: address('owner') } });
    assert.equal(org.status, 201, org.text);
    assert.match(org.body.ownerInvitationUrl, new RegExp(`^${server.deps.config.authUrl}/invitation/[A-Za-z0-9_-]{43}$`));
    const staff = await server.request('POST', '/v1/admin/staff', { token, body: { email: address('staff') } });
    assert.equal(staff.status, 201, staff.text);
    assert.match(staff.body.invitationUrl, new RegExp(`^${server.deps.config.authUrl}/invitation/[A-Za-z0-9_-]{43}$`));
    const page = await new Browser().follow(staff.body.invitationUrl, server.deps.config.adminUrl);
    assert.equal(page.status, 200);
    assert.match(page.page ?? '', /name="passwordConfirm"/);
  });
});
