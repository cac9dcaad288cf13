// The dashboard in a real browser, as an org's member: sign in through the identity provider,
// the signature page (copy as HTML and as text), no admin actions offered, sign-out, and no
// accessibility violations of serious or critical impact.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, createTemplate, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, launchBrowser, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();

describe('the dashboard for a member', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  browserSuite(
    {
      org: { starterTemplates: false },
      template: {
        html: '<table><tr><td><strong>{{ user.name }}</strong><br>{{ user.title }} · {{ org.name }}</td></tr></table>',
        text: '{{ user.name }} | {{ user.title }}',
      },
    },
    (s) => ({ server, browser, org } = s),
  );

  test('a member signs in, sees their signature, copies it, and is offered no admin page', async () => {
    const member = await userWithPassword(server, org, 'member');
    const current = await server.request('GET', `/v1/orgs/${org.orgId}/users/${member.userId}`, { key: org.key });
    const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${member.userId}`, {
      key: org.key,
      body: { version: current.body.version, name: 'Grace Hopper', title: 'Rear Admiral' },
    });
    assert.equal(patched.status, 200, patched.text);
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, member);

    // Back on the page asked for (no code left in the address bar), then the start page is the signature.
    assert.equal(new URL(page.url()).search, '');
    await page.goto(`${server.url}/app`);
    await page.getByRole('heading', { level: 1, name: 'My signature' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/signature');
    const frame = page.frameLocator('iframe[title="Your signature"]');
    await frame.getByText('Grace Hopper').waitFor();
    assert.match(await frame.locator('body').innerText(), /Rear Admiral/);

    await page.getByRole('button', { name: 'Copy as plain text' }).click();
    await page.getByText('Copied to the clipboard.').first().waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), 'Grace Hopper | Rear Admiral');
    await page.getByRole('button', { name: 'Copy signature' }).click();
    // The write is asynchronous: wait until the clipboard holds the formatted version.
    // Polled from here, not by waitForFunction (eval() in the page, which the CSP refuses when it polls).
    await waitFor(
      () => page.evaluate(`navigator.clipboard.read().then(([item]) => !!item && item.types.includes('text/html'))`),
      'HTML on the clipboard',
      10_000,
    );
    const copiedHtml = (await page.evaluate(`navigator.clipboard.read().then(([item]) => item.getType('text/html')).then((blob) => blob.text())`)) as string;
    assert.match(copiedHtml, /<strong>Grace Hopper<\/strong>/);
    await page.getByText('Gmail', { exact: true }).waitFor();

    const nav = page.getByRole('navigation', { name: 'Main' });
    const links = await nav.getByRole('link').allInnerTexts();
    assert.ok(links.includes('My signature'), links.join(', '));
    for (const adminPage of ['Overview', 'Users', 'Templates', 'API keys', 'Audit']) assert.ok(!links.includes(adminPage), `member offered ${adminPage}`);

    assert.deepEqual(await seriousViolations(page), []);
    // An admin page typed in the address bar explains itself instead of offering actions.
    await page.goto(`${server.url}/app/users`);
    await page.getByRole('heading', { level: 1, name: 'Not available to your role' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Add user|Import|Remove/ }).count(), 0);
    await page.goto(`${server.url}/app/signature`);
    await page.getByRole('heading', { level: 1, name: 'My signature' }).waitFor();
    assert.deepEqual(errors, []);

    // Tokens live in memory only.
    const stored = (await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')) as string;
    assert.doesNotMatch(stored, /eyJ/);

    // A reload loses the tokens (memory only) and signs in again through the provider's session,
    // without the password.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'My signature' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/signature');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Password').waitFor();
    // The provider's session ended: coming back asks for the password again.
    await page.goto(`${server.url}/app/signature`);
    await page.getByLabel('Password').waitFor();
    await context.close();
  });
});

describe('silent renewal', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  before(async () => {
    // ID tokens of 4 s: the app renews at half their life, well before each expires.
    server = await startServer({ ID_TOKEN_TTL_S: '4' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the ID token is renewed with the refresh token before it expires, and the API keeps answering', async () => {
    const org = await createOrg(server);
    await createTemplate(server, org);
    const member = await userWithPassword(server, org, 'member');
    const { page, errors, context } = await openPage(browser);
    const grants: { type: string; status: number }[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/auth/oauth2/token')) {
        grants.push({ type: new URLSearchParams(res.request().postData() ?? '').get('grant_type') ?? '', status: res.status() });
      }
    });
    await signInThroughApp(page, `${server.url}/app/signature`, member);
    await page.frameLocator('iframe[title="Your signature"]').getByText('Ada Lovelace').waitFor();
    // Past the first token's life, with no API call in between: the timer renewed it (at about
    // 2 s, then each new token at half its life; calls alone would renew at most once here), and
    // the app is still signed in on the same page. The second renewal comes once the first token's
    // 4 s are over: waited for, rather than slept past.
    await waitFor(() => grants.filter((g) => g.type === 'refresh_token').length >= 2, 'two renewals of the ID token');
    const renewals = grants.filter((g) => g.type === 'refresh_token');
    assert.ok(renewals.length >= 2, JSON.stringify(grants));
    assert.ok(
      renewals.every((g) => g.status === 200),
      JSON.stringify(grants),
    );
    assert.equal(new URL(page.url()).pathname, '/app/signature');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
