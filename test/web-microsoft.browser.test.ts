// The Microsoft 365 page in a real browser, as an org's admin: download the Outlook manifest (the
// org's, with its key), see when the add-in last fetched each user's signature, connect Entra ID
// against the fake of Microsoft and see the sync's result; axe on the page.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { TestServer } from './helpers/server.ts';
import { createUser, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { graphUser, startFakeMicrosoft, type FakeMicrosoft } from './helpers/fake-microsoft.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();
// Before Entra is connected, its GET answers 404 (the contract, as Google's): the browser logs that
// one failed load; anything else in the console is a fault.
const unexpected = (errors: string[]) => errors.filter((e) => !/status of 404/.test(e));

describe('the Microsoft 365 page', { skip }, () => {
  let fake: FakeMicrosoft;
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let admin: Person;
  before(async () => {
    fake = await startFakeMicrosoft();
  });
  browserSuite(
    {
      env: () => ({ MICROSOFT_LOGIN_URL: fake.url, MICROSOFT_GRAPH_URL: fake.url, JOBS_POLL_MS: '100' }),
      org: { name: 'Contoso' },
      template: {},
      person: 'admin',
    },
    (s) => ({ server, browser, org, person: admin } = s),
  );
  after(async () => {
    await fake?.close();
  });

  test('the Outlook add-in: opening the page makes nothing; the manifest downloads with the key, the steps are there, and each fetch shows per user', async () => {
    const user = await createUser(server, org, { name: 'Fetched Person' });
    const { page, errors } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/microsoft-365`, admin);
    await page.getByRole('heading', { level: 1, name: 'Microsoft 365' }).waitFor();
    await page.getByText('Settings → Integrated apps').waitFor();
    await page.getByText('Not set up yet').waitFor();
    // Opening the page made no key and no audit entry (DECISIONS wave 3).
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/integrations/outlook`, { key: org.key })).body.addinKey, null);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit`, { key: org.key });
    assert.ok(!audit.body.items.some((e: { action: string }) => e.action.startsWith('outlook.')), JSON.stringify(audit.body.items));
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download the manifest' }).click();
    const file = await download;
    const xml = await readFile((await file.path())!, 'utf8');
    const { addinKey } = (await server.request('GET', `/v1/orgs/${org.orgId}/integrations/outlook`, { key: org.key })).body;
    assert.match(xml, /<OfficeApp[\s\S]*xsi:type="MailApp"/);
    assert.ok(xml.includes(`runtime.js?key=${addinKey}`), 'the manifest carries the org key');
    await page.getByRole('button', { name: 'Replace the add-in key' }).waitFor();
    const fetched = await server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(user.email)}`, { headers: { 'x-addin-key': addinKey } });
    assert.equal(fetched.status, 200);
    await page.reload();
    const table = page.getByRole('table', { name: 'Outlook fetches' });
    await table.getByText(user.email).waitFor();
    await table.getByText('Inserted').waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'microsoft-365');
    assert.deepEqual(unexpected(errors), []);
    await page.close();
  });

  test('Entra ID: connect, the first sync runs, its result and a preview show', async () => {
    const tenantId = randomUUID();
    const clientId = randomUUID();
    const synced = graphUser({ displayName: 'Synced From Entra' });
    fake.tenants.set(tenantId, { clientId, clientSecret: 'entra-secret', users: [synced] });
    const { page, errors } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/microsoft-365`, admin);
    await page.getByLabel('Directory (tenant) ID').fill(tenantId);
    await page.getByLabel('Application (client) ID').fill(clientId);
    await page.getByLabel('Client secret').fill('entra-secret');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Connected to Entra ID').waitFor();
    // The page shows the sync's outcome once it is done (reloaded here rather than polled).
    await waitFor(
      async () => {
        const status = (await server.request('GET', `/v1/orgs/${org.orgId}/integrations/microsoft`, { key: org.key })).body;
        return Boolean(status.lastSyncAt);
      },
      'the first sync to finish',
      60_000,
    );
    await page.reload();
    await page.getByText('1 created, 0 updated, 0 removed, 0 skipped').waitFor();
    await page.getByRole('button', { name: 'Preview a sync' }).click();
    await page.getByRole('status').filter({ hasText: 'Nothing was changed' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'microsoft-365-entra');
    assert.deepEqual(unexpected(errors), []);
    await page.close();
  });
});
