// The dashboard's own-account pages and the overview in a real browser: the profile with its live
// preview, two-step verification (enrol with the QR code's secret, confirm, turn off), the overview
// with its opens chart, and a blocked org's banner. axe-core on each page; no console errors.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { TOTP } from 'otpauth';
import type { TestServer } from './helpers/server.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, createTemplate, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';
import { deliver, event } from './helpers/payments.ts';

const skip = browserUnavailable();
const DAY_S = 86_400;

async function noViolations(page: Page, where: string) {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${where}`);
}

describe('the dashboard pages', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  browserSuite(
    {
      env: { BILLING_URL: 'https://billing.example.test/acme' },
      org: { name: 'Acme Rockets', starterTemplates: false },
      template: { html: '<p><b>{{ user.name }}</b> — {{ user.title }}, {{ org.name }}</p>', text: '{{ user.name }}' },
    },
    (s) => ({ server, browser, org } = s),
  );

  test('profile: the preview follows the typing, and saving changes the signature', async () => {
    // Members change their title only where the org allows it (DECISIONS wave 3, "Who edits what").
    const current = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
    const allowed = await server.request('PATCH', `/v1/orgs/${org.orgId}`, {
      key: org.key,
      body: { version: current.body.version, selfServiceFields: [...current.body.selfServiceFields, 'title'] },
    });
    assert.equal(allowed.status, 200, allowed.text);
    const member = await userWithPassword(server, org, 'member');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/profile`, member);
    await page.getByRole('heading', { level: 1, name: 'My profile' }).waitFor();
    const preview = page.frameLocator('iframe[title="Signature preview"]');
    await preview.getByText('Ada Lovelace').waitFor();
    await page.getByLabel('Job title').fill('Chief Analyst');
    await preview.getByText('Ada Lovelace — Chief Analyst, Acme Rockets').waitFor();
    // Escaped as the service escapes: markup typed into a field stays text.
    await page.getByLabel('Name').fill('Ada <i>L</i>');
    await preview.getByText('Ada <i>L</i> — Chief Analyst, Acme Rockets').waitFor();
    await page.getByLabel('Name').fill('Ada King');
    await noViolations(page, 'profile');
    await screenshot(page, 'profile');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    const saved = await server.request('GET', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key });
    assert.equal(saved.body.title, 'Chief Analyst');
    assert.equal(saved.body.name, 'Ada King');
    await page.getByRole('link', { name: 'My signature' }).click();
    await page.frameLocator('iframe[title="Your signature"]').getByText('Ada King').waitFor();
    await screenshot(page, 'signature');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('two-step verification: enrol with the secret, confirm with a code, turn it off', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/security`, member);
    await page.getByRole('button', { name: 'Set up two-step verification' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = (await page.getByLabel('Secret key').innerText()).trim();
    await noViolations(page, 'two-step enrolment');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('alert').waitFor();
    const code = new TOTP({ secret, digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await page.getByLabel('Code from your authenticator app').fill(code);
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-step verification is on.').waitFor();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key })).body.mfaEnabled, true);

    await page.getByRole('button', { name: 'Turn off two-step verification' }).click();
    await page.getByRole('dialog', { name: 'Turn off two-step verification?' }).getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up two-step verification' }).waitFor();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key })).body.mfaEnabled, false);
    // The wrong code's refusal was shown, as the API worded it: no console error for it.
    assert.deepEqual(
      errors.filter((e) => !/status of 400/.test(e)),
      [],
    );
    await context.close();
  });

  test('password: a wrong current one is refused on its field; a change signs out everywhere and the new one signs in', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/security`, member);
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    const form = page.getByRole('form', { name: 'Password' });
    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password', { exact: true }).fill('a brand new long password');
    await form.getByLabel('New password again').fill('a brand new long password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.locator('.field-error').first().waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'axe on the password form with an error');
    await form.getByLabel('Current password').fill(member.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    // The change ended the identity provider's session: the app sends the person to sign in.
    await page.getByLabel('Password', { exact: true }).waitFor();
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password', { exact: true }).fill('a brand new long password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/security');
    assert.deepEqual(
      errors.filter((e) => !/status of 400/.test(e)),
      [],
    );
    await context.close();
  });

  test('overview: plan, seats, API requests of the quota and the 30-day chart of real and proxied opens', async () => {
    const owner = await userWithPassword(server, org, 'owner');
    for (const ua of ['Mozilla/5.0 (X11) Thunderbird', 'Mozilla/5.0 (X11) Thunderbird', 'GoogleImageProxy']) {
      await fetch(`${server.url}/v1/p/${owner.userId}`, { headers: { 'user-agent': ua } });
    }
    await server.deps.opens.flush();
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app`, owner);
    await page.getByRole('heading', { level: 1, name: 'Acme Rockets' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/overview');
    const stats = page.getByRole('definition');
    assert.ok(
      (await stats.allInnerTexts()).some((t) => /of 50/.test(t)),
      'seats used of the limit',
    );
    await page.getByRole('meter', { name: 'API requests this month' }).waitFor();
    assert.ok(
      (await stats.allInnerTexts()).some((t) => /^[\d,.\s]+ of 100[,.\s]?000\s+resets /.test(t)),
      'API-key requests of the monthly quota',
    );
    const chart = page.getByRole('img', { name: /Opens over the last 30 days: 2 real, 1 by mail proxies/ });
    await chart.waitFor();
    await screenshot(page, 'overview');
    await page.getByRole('button', { name: 'Show the numbers' }).click();
    const today = new Date().toISOString().slice(0, 10);
    await page
      .getByRole('table', { name: 'Opens per day (UTC)' })
      .getByRole('row', { name: `${today} 2 1` })
      .waitFor();
    await screenshot(page, 'overview-numbers');
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    for (const label of ['Overview', 'Users', 'My signature', 'My profile']) assert.ok(nav.includes(label), nav.join(', '));
    assert.equal(await page.locator('.banner').count(), 0, 'no payment banner for a paying org');
    await noViolations(page, 'overview');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a blocked org: the banner names the cap and links to billing; a write shows the refusal', async () => {
    const blocked = await createOrg(server, { name: 'Lapsed Ltd' });
    await createTemplate(server, blocked);
    // A payment that failed 15 days ago: the 14-day grace period is over.
    const failed = await deliver(
      server,
      event(
        'invoice.payment_failed',
        { customer: `cus_${blocked.orgId}`, metadata: { orgId: blocked.orgId } },
        { created: Math.floor(Date.now() / 1000) - 15 * DAY_S },
      ),
    );
    assert.equal(failed.status, 200, failed.text);
    const status = await server.request('GET', `/v1/orgs/${blocked.orgId}/plan-status`, { key: blocked.key });
    assert.equal(status.body.blockedBy, 'grace_expired', status.text);

    const owner = await userWithPassword(server, blocked, 'owner');
    const { page, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/profile`, owner);
    const banner = page.getByRole('region', { name: /blocked: payment is overdue/ });
    await banner.waitFor();
    assert.equal(await banner.getByRole('link', { name: 'Go to billing' }).getAttribute('href'), 'https://billing.example.test/acme');
    await page.getByLabel('Job title').fill('Still here');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /grace period ended/ })
      .waitFor();
    await noViolations(page, 'blocked banner');
    await context.close();
  });
});
