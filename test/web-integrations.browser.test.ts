// The Integrations page in a real browser, as an org's admin, against the fake Google: connect with
// a key file, test the connection (Google's answer in plain words), preview a sync, push, and see
// each user's state; axe on the page; a member is not offered it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';
import { startFakeGoogle, GMAIL_SCOPE, type FakeGoogle } from './helpers/fake-google.ts';
import { googleDatabase, startGoogleServer, workspace } from './helpers/google-setup.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();

describe('the Integrations page', { skip }, () => {
  let fake: FakeGoogle;
  let database: Awaited<ReturnType<typeof googleDatabase>>;
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let admin: Person;
  before(async () => {
    fake = await startFakeGoogle();
    database = await googleDatabase();
  });
  browserSuite(
    {
      startServer: (testFile) => startGoogleServer(fake, database.url, {}, { testFile }),
      org: { name: 'Acme Rockets', seats: 50 },
      template: { html: '<p><strong>{{ user.name }}</strong> · {{ user.title }}</p>' },
      person: 'admin',
    },
    (s) => ({ server, browser, org, person: admin } = s),
  );
  after(async () => {
    await fake?.close();
    await database?.drop();
  });

  test('connect, test, preview a sync, push, and see where each signature stands', async () => {
    const ws = workspace(fake, 6, { user: (n) => (n === 6 ? { gmail: false } : {}) });
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/integrations`, admin);
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await page.getByRole('heading', { name: 'Connect Google Workspace' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'integrations-connect');

    const form = page.getByRole('form', { name: 'Connect Google Workspace' });
    await form
      .getByLabel(/Service account key/)
      .setInputFiles([{ name: 'key.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(ws.account.keyFile)) }]);
    await form.getByLabel('Admin address').fill(ws.admin.primaryEmail);
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Google Workspace', exact: true }).waitFor();
    await page.getByText(ws.account.clientEmail).waitFor();

    // The first sync and push run on their own; the table fills in.
    await waitFor(() => fake.patches.filter((p) => p.email.endsWith(ws.domain)).length === 6, 'the first push', 60_000);
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.getByRole('status', { name: 'Connection test' });
    await result.getByText('domain-wide delegation is active').waitFor();
    await result.getByText(/Read 7 users/).waitFor();

    await page.reload();
    const table = page.getByRole('table', { name: 'Signatures in Gmail' });
    await table.getByText(`user0001@${ws.domain}`).waitFor();
    await table.getByText(/Gmail is not enabled for user0006/).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'integrations');

    // A directory change, previewed: nothing changes until the sync runs.
    ws.users[0]!.organizations = [{ title: 'Chief Rocket Officer', department: 'Sales', primary: true }];
    await page.getByRole('button', { name: 'Preview sync' }).click();
    const preview = page.getByRole('dialog', { name: 'What a sync would change' });
    await preview.getByText('0 to create, 1 to update, 0 to delete').waitFor();
    await preview.getByText(`update: user0001@${ws.domain} (title)`).waitFor();
    await preview.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText(/Sync: succeeded/).waitFor({ timeout: 60_000 });
    await waitFor(() => fake.users.get(`user0001@${ws.domain}`)!.signature?.includes('Chief Rocket Officer'), 'the new title in Gmail', 60_000);

    await page.getByRole('button', { name: 'Push signatures' }).click();
    await page.getByText(/Push: succeeded/).waitFor({ timeout: 60_000 });
    // The one 404: the page asking for the connection before there was one.
    assert.deepEqual(
      errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
    await context.close();
  });

  test('a refused delegation is explained; a member is not offered the page', async () => {
    const other = await createOrg(server, { seats: 10 });
    const otherAdmin = await userWithPassword(server, other, 'admin');
    const ws = workspace(fake, 1, { delegate: [GMAIL_SCOPE] });
    const put = await server.request('PUT', `/v1/orgs/${other.orgId}/integrations/google`, {
      key: other.key,
      body: { serviceAccountKey: ws.account.keyFile, adminEmail: ws.admin.primaryEmail, syncUsers: false, pushSignatures: false },
    });
    assert.equal(put.status, 200);
    const { page, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/integrations`, otherAdmin);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('status', { name: 'Connection test' })
      .getByText(/domain-wide delegation is not granted/)
      .waitFor();
    await context.close();

    const member = await userWithPassword(server, org, 'member');
    const m = await openPage(browser);
    await signInThroughApp(m.page, `${server.url}/app/signature`, member);
    await m.page.getByRole('navigation').first().waitFor();
    assert.equal(await m.page.getByRole('link', { name: 'Integrations' }).count(), 0);
    await m.context.close();
  });
});
