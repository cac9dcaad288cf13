// The staff admin app at ADMIN_URL in a real browser: staff sign in with TOTP (enrolled at the
// first sign-in, the code computed from the secret the page shows); a customer's sign-in gets
// nothing; search finds an org by its customer id; a failed payment event replayed from the app
// changes the org; creating an org from the app; staff invite, disable and TOTP reset; the staff
// audit shows each action. Every page is checked with axe-core and for console errors.
// With SCREENSHOTS=1, each page is saved to docs/screenshots/ (test/helpers/screenshots.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, staffAccount, userWithPassword } from './helpers/fixtures.ts';
import { deliver, event, staffToken, subscription } from './helpers/payments.ts';
import { browserUnavailable, launchBrowser, openPage, seriousViolations, signInThroughApp, type TestPage, type SharedBrowser } from './helpers/chromium.ts';
import { totpCode } from '../src/idp/totp.ts';
import { Readable } from 'node:stream';
import { Spool } from '../src/gateway/spool.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();

describe('the staff admin app', { skip }, () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let browser: SharedBrowser;
  let staff: TestPage;
  let me: { userId: string; email: string; password: string; secret: string };
  /** TOTP codes by a step not used before (a code is accepted once). */
  let lastStep = 0;
  const freshCode = async (secret: string) => {
    let now = Date.now();
    const step = Math.floor(now / 30_000);
    if (step <= lastStep) {
      await new Promise((r) => setTimeout(r, (lastStep + 1) * 30_000 - now + 100));
      now = Date.now();
    }
    lastStep = Math.floor(now / 30_000);
    return totpCode(secret, now);
  };

  before(async () => {
    smtp = await startSmtp();
    server = await startServer({ SMTP_URL: smtp.url, JOBS_POLL_MS: '50' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  const admin = (p = '') => `${server.url}/admin${p}`;
  const shot = (page: Page, name: string) => screenshot(page, `admin-${name}`);
  async function clean(t: TestPage) {
    assert.deepEqual(await seriousViolations(t.page), [], 'no serious or critical axe violations');
    assert.deepEqual(t.errors, [], 'no console errors');
  }

  test('no page before sign-in; staff enrol TOTP at the first sign-in and land on the organisations', async () => {
    const account = await staffAccount(server);
    staff = await openPage(browser);
    const { page } = staff;
    await page.goto(admin('/orgs'));
    // The identity provider's page, not the app.
    await page.getByLabel('Password').waitFor();
    assert.match(new URL(page.url()).pathname, /^\/auth\//);
    assert.equal(await page.getByRole('heading', { name: 'Organisations' }).count(), 0);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const secret = (await page.locator('[data-secret]').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]+$/);
    await page.getByLabel('Code from the app').fill(await freshCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organisations' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/orgs');
    me = { ...account, secret };
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    assert.deepEqual(nav, ['Organisations', 'Payment events', 'Staff', 'Gateway errors', 'Staff audit']);
    await clean(staff);
  });

  test("gateway errors: the SMTP gateway's refusals across orgs, filtered by org", async () => {
    const org = await createOrg(server);
    // A message the gateway refuses (the org has no gateway settings), through its engine.
    const spool = new Spool();
    await spool.fill(Readable.from([Buffer.from('From: ada@refused.example\r\n\r\nHi.\r\n')]));
    const proof = { remoteAddress: '192.0.2.7', helo: 'client.example', provenOrg: org.orgId, networks: [] };
    const reply = await server.deps.gateway.engine.handle(
      proof,
      { from: 'ada@refused.example', to: ['grace@ext.example'], use8BitMime: false },
      spool,
      randomUUID(),
    );
    assert.equal(reply.code, 550);
    const { page } = staff;
    await page.goto(admin(`/gateway-errors?orgId=${org.orgId}`));
    await page.getByRole('heading', { level: 1, name: 'Gateway errors' }).waitFor();
    const table = page.getByRole('table', { name: 'Gateway errors' });
    await table.getByText('This organisation has no gateway settings').waitFor();
    await table.getByText('192.0.2.7').waitFor();
    assert.equal(await table.getByRole('row').count(), 2, 'the header and the one refusal of this org');
    await shot(page, 'gateway-errors');
    await clean(staff);
  });

  test("a customer's sign-in gets nothing here", async () => {
    const org = await createOrg(server);
    const owner = await userWithPassword(server, org, 'owner');
    const customer = await openPage(browser);
    // Signed in to the dashboard first: that session does not sign anyone in to the admin app.
    await signInThroughApp(customer.page, `${server.url}/app/signature`, owner);
    await customer.page.goto(admin('/orgs'));
    await customer.page.getByLabel('Password').waitFor();
    // The admin client's sign-in knows staff accounts only.
    await customer.page.getByLabel('Email').fill(owner.email);
    await customer.page.getByLabel('Password').fill(owner.password);
    await customer.page.getByRole('button', { name: 'Sign in' }).click();
    await customer.page.getByText('Incorrect email or password').waitFor();
    assert.equal(await customer.page.getByRole('heading', { name: 'Organisations' }).count(), 0);
    await customer.context.close();
  });

  test('search finds an org by its customer id; its page shows billing, users, events and audit', async () => {
    const tag = `Findable ${randomUUID().slice(0, 6)}`;
    const org = await createOrg(server, { name: tag, seats: 8 });
    await createUser(server, org, { name: 'Ada Lovelace' });
    const customerId = `cus_app_${randomUUID().slice(0, 10)}`;
    await deliver(server, event('checkout.session.completed', { customer: customerId, client_reference_id: org.orgId }));
    await deliver(server, event('customer.subscription.updated', subscription(org.orgId, { customer: customerId, quantity: 8, lookupKey: 'team' })));

    const { page } = staff;
    await page.goto(admin('/orgs'));
    await page.getByRole('searchbox', { name: 'Search' }).fill(customerId);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const table = page.getByRole('table', { name: 'Organisations' });
    await table.getByRole('link', { name: tag }).waitFor();
    assert.equal(await table.getByRole('row').count(), 2, 'the header and one org');
    assert.match(new URL(page.url()).search, new RegExp(`q=${customerId}`));
    await shot(page, 'orgs');

    await table.getByRole('link', { name: tag }).click();
    await page.getByRole('heading', { level: 1, name: tag }).waitFor();
    const billing = page.getByRole('region', { name: 'Billing' });
    await billing.getByText(customerId).waitFor();
    await billing.getByText('team').waitFor();
    await page.getByRole('region', { name: 'Plan status' }).getByText('2 of 8').waitFor();
    await page.getByRole('region', { name: 'Users' }).getByText('Ada Lovelace').waitFor();
    const events = page.getByRole('region', { name: 'Payment events' });
    await events.getByText('customer.subscription.updated').waitFor();
    await events.getByText('checkout.session.completed').waitFor();
    await page.getByRole('region', { name: 'Audit' }).getByText('user.create').first().waitFor();
    // People by name, not by id: the user the entry is about, and their status in the users card.
    await page.getByRole('region', { name: 'Audit' }).getByText('Ada Lovelace').first().waitFor();
    const ada = page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: 'Ada Lovelace' });
    await ada.getByText('invited').waitFor();

    // Staff overrides: seats and a trial end, through PATCH /v1/admin/orgs/{orgId}; the plan status follows.
    const overrides = page.getByRole('region', { name: 'Staff overrides' });
    await overrides.getByLabel('Seats').fill('20');
    await overrides.getByLabel('Trial ends (writable until)').fill('2099-12-31');
    await overrides.getByRole('button', { name: 'Save overrides' }).click();
    await page.getByText('Overrides saved.').waitFor();
    await page.getByRole('region', { name: 'Plan status' }).getByText('2 of 20').waitFor();
    const saved = (await server.request('GET', `/v1/admin/orgs/${org.orgId}`, { token: await staffToken(server) })).body;
    assert.equal(saved.overrides.seatsOverride, 20);
    assert.equal(saved.overrides.trialEndsAt, '2099-12-31T23:59:59.000Z');
    assert.equal(saved.overrides.planOverride, null);
    await shot(page, 'org');
    await clean(staff);
  });

  test('keyboard only: skip link, search with Enter, sort by a column header, page through, a dialog opens and closes', async () => {
    const tag = `Keys ${randomUUID().slice(0, 6)}`;
    // One more than a page (25), in an order their names do not have.
    for (let i = 0; i < 26; i++) await createOrg(server, { name: `${tag} ${String((i * 7) % 26).padStart(2, '0')}` });
    const { page } = staff;
    // Within the app (a reload would sign in again through the provider's redirects first).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organisations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organisations' }).waitFor();
    // Start the keyboard from the top of the page, as after a load.
    await page.evaluate("document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute('tabindex')");
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement?.id'), 'main');

    await page.getByRole('searchbox', { name: 'Search' }).focus();
    await page.keyboard.type(tag);
    await page.keyboard.press('Enter');
    const table = page.getByRole('table', { name: 'Organisations' });
    await page.getByRole('button', { name: 'Next' }).waitFor();
    const nameHeader = table.getByRole('button', { name: /^Name/ });
    await nameHeader.focus();
    await page.keyboard.press('Enter');
    await table.getByRole('columnheader', { name: /Name/ }).and(page.locator('[aria-sort="ascending"]')).waitFor();
    const names = async () => (await table.getByRole('link').allInnerTexts()).map((n) => n.slice(tag.length + 1));
    // Polled from here, not by waitForFunction (eval() in the page, which the CSP refuses when it polls).
    await waitFor(() => new URL(page.url()).searchParams.get('sort') === 'name', 'sort=name in the URL', 10_000);
    await table.getByRole('link', { name: `${tag} 00` }).waitFor();
    const first = await names();
    assert.deepEqual(
      first,
      Array.from({ length: 25 }, (_, i) => String(i).padStart(2, '0')),
    );
    await page.getByRole('button', { name: 'Next' }).focus();
    await page.keyboard.press('Enter');
    await table.getByRole('link', { name: `${tag} 25` }).waitFor();
    assert.deepEqual(await names(), ['25']);
    await page.getByText('Page 2').waitFor();
    await page.getByRole('button', { name: 'Previous' }).focus();
    await page.keyboard.press('Enter');
    await table.getByRole('link', { name: `${tag} 00` }).waitFor();
    // A second Enter on the header reverses the order.
    await table.getByRole('button', { name: /^Name/ }).focus();
    await page.keyboard.press('Enter');
    await table.getByRole('link', { name: `${tag} 25` }).waitFor();
    assert.equal((await names())[0], '25');

    // The invite dialog: opened with Enter, closed with Escape, focus back on its button.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff', exact: true }).click();
    const inviteButton = page.getByRole('button', { name: 'Invite staff' });
    await inviteButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Invite staff' });
    await dialog.waitFor();
    assert.equal(await page.evaluate("Boolean(document.activeElement?.closest('dialog[open]'))"), true, 'focus moves into the dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Invite staff', 'focus back on the button that opened it');
    await clean(staff);
  });

  test('a failed event is replayed from the app, with the result shown, and the org changes', async () => {
    const holder = await createOrg(server, { name: `Holder ${randomUUID().slice(0, 6)}` });
    const waiting = await createOrg(server, { name: `Waiting ${randomUUID().slice(0, 6)}` });
    const customer = `cus_rpl_${randomUUID().slice(0, 10)}`;
    await deliver(server, event('checkout.session.completed', { customer, client_reference_id: holder.orgId }));
    // Two orgs cannot share a customer: this one fails, and is kept with its error.
    const blocked = event('checkout.session.completed', { customer, client_reference_id: waiting.orgId });
    await deliver(server, blocked);
    // The holder moves to another customer, so a replay can apply it now.
    await deliver(server, event('checkout.session.completed', { customer: `${customer}_2`, client_reference_id: holder.orgId }));

    const { page } = staff;
    // A failed event has no org yet (it was not applied to one): found by status and type.
    await page.goto(admin('/events?status=failed&type=checkout.session.completed'));
    await page.getByRole('heading', { level: 1, name: 'Payment events' }).waitFor();
    await page.getByRole('button', { name: `Details of ${blocked.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Event ${blocked.id}` });
    // Staff read why in words, with a stable code; the database's own text stays in the log.
    await dialog.getByText(/payment customer that another organisation already has/).waitFor();
    await dialog.getByText('CUSTOMER_TAKEN', { exact: true }).waitFor();
    assert.doesNotMatch(await dialog.innerText(), /duplicate key|violates|constraint/);
    assert.match(await dialog.getByLabel('Payload').innerText(), new RegExp(`"client_reference_id": "${waiting.orgId}"`));
    await shot(page, 'event');
    await dialog.getByRole('button', { name: 'Replay this event' }).click();
    const results = page.getByRole('dialog', { name: 'Replay results' });
    await results.getByText(blocked.id).waitFor();
    await results.getByText('applied', { exact: true }).waitFor();
    await results.getByRole('button', { name: 'Close' }).first().click();

    await page.goto(admin(`/orgs/${waiting.orgId}`));
    const billing = page.getByRole('region', { name: 'Billing' });
    await billing.getByText(customer, { exact: true }).waitFor();
    await billing.getByText('active').waitFor();
    await clean(staff);
  });

  test('a table wider than its place is a tab stop named as the table, as soon as its content widens it; one that fits is none', async () => {
    await createOrg(server, { name: `Wide ${randomUUID().slice(0, 6)}` });
    const { page } = staff;
    await page.goto(admin('/orgs'));
    const table = page.getByRole('table', { name: 'Organisations' });
    await table.getByRole('row').nth(1).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Organisations' }).count(), 0, 'the table fits: no tab stop');
    // A cell that widens (as a name arrives in place of an id): the wrapper is a named tab stop
    // before any other script runs, and is none again once the cell narrows.
    const states = (await page.evaluate(`(async () => {
      const wrap = document.querySelector('table[aria-label="Organisations"]').parentElement;
      const cell = document.querySelector('table[aria-label="Organisations"] tbody td');
      const state = () => ({
        scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
        tabindex: wrap.getAttribute('tabindex'),
        role: wrap.getAttribute('role'),
        label: wrap.getAttribute('aria-label'),
      });
      const wide = document.createElement('div');
      wide.style.width = '4000px';
      cell.append(wide);
      await Promise.resolve();
      const widened = state();
      wide.remove();
      await Promise.resolve();
      return { widened, narrowed: state() };
    })()`)) as Record<'widened' | 'narrowed', Record<string, unknown>>;
    assert.deepEqual(states.widened, { scrolls: true, tabindex: '0', role: 'region', label: 'Organisations' });
    assert.deepEqual(states.narrowed, { scrolls: false, tabindex: null, role: null, label: null });
    // In a narrow window the table scrolls: the keyboard reaches it and scrolls it.
    const size = page.viewportSize();
    await page.setViewportSize({ width: 360, height: 700 });
    try {
      const region = page.getByRole('region', { name: 'Organisations' });
      await region.waitFor();
      await region.focus();
      await page.keyboard.press('ArrowRight');
      // Polled from here, not by waitForFunction (eval() in the page, which the CSP refuses when it
      // polls: the scroll had always landed before its first check until a CI run's did not).
      const scrolled = () => page.evaluate(`document.querySelector('table[aria-label="Organisations"]').parentElement.scrollLeft`);
      await waitFor(async () => ((await scrolled()) as number) > 0, 'the table scrolled by the arrow key');
      await shot(page, 'orgs-narrow');
      await clean(staff);
    } finally {
      if (size) await page.setViewportSize(size);
    }
  });

  test('"Replay all failed" answers the result of each', async () => {
    const orphan = event('invoice.payment_failed', { metadata: { orgId: randomUUID() } });
    await deliver(server, orphan);
    const { page } = staff;
    await page.goto(admin('/events?status=failed'));
    await page.getByRole('button', { name: 'Replay all failed' }).click();
    await page.getByRole('dialog', { name: 'Replay every failed event?' }).getByRole('button', { name: 'Replay all failed' }).click();
    const results = page.getByRole('dialog', { name: 'Replay results' });
    const row = results.getByRole('row').filter({ hasText: orphan.id });
    await row.getByText('failed', { exact: true }).waitFor();
    await row.getByText(/no org for this event/).waitFor();
    await shot(page, 'replay');
    await results.getByRole('button', { name: 'Close' }).first().click();
    await clean(staff);
  });

  test('creating an organisation from the app: it exists, its key is shown once, its owner is invited by mail', async () => {
    const { page } = staff;
    const name = `Created ${randomUUID().slice(0, 6)}`;
    const ownerEmail = `owner-${randomUUID().slice(0, 8)}@example.test`;
    await page.goto(admin('/orgs'));
    await page.getByRole('link', { name: 'Create an organisation' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create an organisation' }).waitFor();
    // A refusal names its field and creates nothing.
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Owner’s email').fill('not an address');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('.field-error').first().waitFor();
    await shot(page, 'create');
    // The browser logs the refused request (400) as a console error: that one was asked for.
    assert.deepEqual(staff.errors.splice(0), ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await page.getByLabel('Seats').fill('12');
    await page.getByLabel('Owner’s email').fill(ownerEmail);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organisation created' }).waitFor();
    await page.getByText('the invitation mail lets them choose a password').waitFor();
    const invitation = await smtp.waitFor(ownerEmail);
    assert.match(invitation.subject, new RegExp(name));
    assert.match(invitation.text, /\/auth\/invitation\/[A-Za-z0-9_-]{43}/);
    const key = await page.getByLabel('API key').innerText();
    assert.match(key, /^svc_dev_/);
    await page.getByRole('link', { name: 'Open the organisation' }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    const orgId = new URL(page.url()).pathname.split('/').at(-1) as string;
    const org = await server.request('GET', `/v1/orgs/${orgId}`, { key });
    assert.equal(org.status, 200);
    assert.equal(org.body.seats, 12);
    const users = await server.request('GET', `/v1/orgs/${orgId}/users`, { key });
    assert.deepEqual(
      users.body.items.map((u: { email: string; role: string }) => [u.email, u.role]),
      [[ownerEmail, 'owner']],
    );
    await clean(staff);
  });

  test('staff: invite one, reset another’s TOTP, disable another; never oneself', async () => {
    const other = await staffAccount(server);
    const started = await server.deps.signIn.enrolment(other.userId);
    assert.ok(started && (await server.deps.signIn.confirmEnrolment(other.userId, totpCode(started.secret))));
    const leaving = await staffAccount(server);
    const invitee = `new-${randomUUID().slice(0, 8)}@operator.test`;
    const { page } = staff;
    await page.goto(admin('/staff'));
    await page.getByRole('heading', { level: 1, name: 'Staff' }).waitFor();
    const table = page.getByRole('table', { name: 'Staff' });
    const mine = table.getByRole('row').filter({ hasText: me.email });
    await mine.getByText('you').waitFor();
    assert.equal(await mine.getByRole('button').count(), 0, 'nothing to do to oneself');

    await page.getByRole('button', { name: 'Invite staff' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite staff' });
    await invite.getByLabel('Email').fill(invitee);
    await invite.getByLabel('Name').fill('Grace Hopper');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await table.getByRole('row').filter({ hasText: invitee }).getByText('invited').waitFor();
    assert.match((await smtp.waitFor(invitee)).subject, /staff of Signature Service/);

    await page.getByRole('button', { name: `Reset TOTP of ${other.email}` }).click();
    await page
      .getByRole('dialog', { name: `Reset the TOTP of ${other.email}?` })
      .getByRole('button', { name: 'Reset TOTP' })
      .click();
    await table.getByRole('row').filter({ hasText: other.email }).getByText('not enrolled').waitFor();

    await page.getByRole('button', { name: `Disable ${leaving.email}` }).click();
    await page
      .getByRole('dialog', { name: `Disable ${leaving.email}?` })
      .getByRole('button', { name: 'Disable' })
      .click();
    await table.getByRole('row').filter({ hasText: leaving.email }).getByText('disabled').waitFor();
    await shot(page, 'staff');
    await clean(staff);
  });

  test('the staff audit shows each action, with the staff member and the correlation id', async () => {
    const { page } = staff;
    await page.goto(admin('/audit'));
    await page.getByRole('heading', { level: 1, name: 'Staff audit' }).waitFor();
    const table = page.getByRole('table', { name: 'Staff actions' });
    for (const action of ['org.create', 'user.create', 'webhookEvent.replay', 'staff.invite', 'staff.mfa.reset', 'staff.disable']) {
      // Named by this staff member's email (a shared database may hold other staff's actions too).
      const row = table.getByRole('row').filter({ hasText: action }).filter({ hasText: me.email }).first();
      await row.waitFor();
      // The request's correlation id (the service made one: the app sends none).
      assert.match(await row.getByRole('cell').last().innerText(), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, action);
    }
    await shot(page, 'audit');
    await clean(staff);
  });
});
