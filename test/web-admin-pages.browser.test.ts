// The Images, API keys and Audit pages in a real browser, as an org's admin: upload and delete an
// image, mint a key (its secret shown once, copied) and revoke it, filter the audit log; axe on
// each page, and a member offered none of them.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createTemplate, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { gif, png } from './helpers/images.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();

describe('the Images, API keys and Audit pages', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let admin: Person;
  browserSuite({ org: { name: 'Acme Rockets', starterTemplates: false }, template: {}, person: 'admin' }, (s) => ({ server, browser, org, person: admin } = s));

  test('images: upload two, a refused file says why, delete one with a confirmation', async () => {
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/images`, admin);
    await page.getByRole('heading', { level: 1, name: 'Images' }).waitFor();
    await page.getByText('No images yet.').waitFor();

    await page.getByLabel('Image files to upload').setInputFiles([
      { name: 'logo.png', mimeType: 'image/png', buffer: png(300, 100) },
      { name: 'badge.gif', mimeType: 'image/gif', buffer: gif(64, 64) },
    ]);
    await page.getByText('badge.gif uploaded.').waitFor();
    const grid = page.getByRole('list', { name: 'Uploaded images' });
    await grid.getByText('300×100 px', { exact: false }).waitFor();
    await grid.getByText('64×64 px', { exact: false }).waitFor();
    const items = (await server.request('GET', `/v1/orgs/${org.orgId}/images`, { key: org.key })).body.items;
    assert.equal(items.length, 2);
    // The browser showed them from their public URL.
    assert.ok(
      await grid
        .locator('img')
        .first()
        .evaluate((el) => {
          const img = el as unknown as { complete: boolean; naturalWidth: number };
          return img.complete && img.naturalWidth > 0;
        }),
    );

    // A file that is not one of the three types is refused before upload, with the reason.
    await page.getByLabel('Image files to upload').setInputFiles([{ name: 'vector.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg/>') }]);
    await page.getByRole('alert').filter({ hasText: 'only PNG, JPEG and GIF' }).waitFor();
    // A file whose bytes are not what its type says: the service's message.
    await page.getByLabel('Image files to upload').setInputFiles([{ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('GIF89a not really') }]);
    await page.getByRole('alert').filter({ hasText: 'not the image/png the Content-Type says' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'images');

    // The org's logo cannot go: the dialog says where it is used, and nothing is deleted.
    const logo = items.find((i: { width: number }) => i.width === 300);
    const { version } = (await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).body;
    const made = await server.request('PATCH', `/v1/orgs/${org.orgId}`, { key: org.key, body: { version, logoImageId: logo.imageId } });
    assert.equal(made.status, 200, made.text);
    await grid.getByRole('button', { name: /Delete image 300×100/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this image?' });
    await confirm.getByRole('button', { name: 'Delete image' }).click();
    await confirm.getByText("The image is in use (the org's logo)").waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await grid.getByText('300×100 px', { exact: false }).waitFor();

    await grid.getByRole('button', { name: /Delete image 64×64/ }).click();
    await page.getByRole('dialog', { name: 'Delete this image?' }).getByRole('button', { name: 'Delete image' }).click();
    await page.getByText('Image deleted.').waitFor();
    await grid.getByText('64×64 px', { exact: false }).waitFor({ state: 'detached' });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/images`, { key: org.key })).body.items.length, 1);
    assert.deepEqual(
      errors.filter((e) => !/status of (400|409)/.test(e)),
      [],
    );
    await context.close();
  });

  test('API keys: mint one (the secret shown once, copied), see it used, revoke it with a confirmation', async () => {
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/api-keys`, admin);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByText('How to rotate a key').click();
    await page.getByText('confirm the new key is in use', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'New API key' }).click();
    const nameInput = page.getByRole('dialog', { name: 'New API key' }).getByLabel('Name');
    // The field stops where the API would refuse: the OpenAPI document's maxLength, built into the page.
    assert.equal(await nameInput.getAttribute('maxlength'), '100');
    await nameInput.fill('HR sync');
    await page.getByRole('dialog', { name: 'New API key' }).getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await shown.getByText('it is shown only once').waitFor();
    const key = await shown.getByLabel('Key “HR sync”').inputValue();
    assert.match(key, /^svc_dev_/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), key);
    assert.deepEqual(await seriousViolations(page), [], 'the key dialog');
    await shown.getByRole('button', { name: 'I have stored the key' }).click();

    // The key works; its row shows the prefix, and after use a last-used date. Never the secret again.
    const row = page.getByRole('row').filter({ hasText: 'HR sync' });
    await row.waitFor();
    assert.equal(await page.getByText(key).count(), 0, 'the secret is not shown again');
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key })).status, 200);
    // The first use of a key is recorded at once (api-keys/usage.ts); the page shows it on reload.
    await page.reload();
    await row.getByText('Active').waitFor();
    assert.doesNotMatch(await row.innerText(), /Never/);
    await screenshot(page, 'api-keys');

    await row.getByRole('button', { name: 'Revoke key HR sync' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key “HR sync” revoked: it no longer works.').waitFor();
    await row.getByText(/Revoked/).waitFor();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key })).status, 401);
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('audit: entries with correlation ids, filtered by action, actor and date, paged', async () => {
    for (let i = 0; i < 3; i++) await createTemplate(server, org, { name: `Audit ${i}`, isDefault: false });
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/audit`, admin);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit entries' });
    await table.getByText('template.create').first().waitFor();

    await page.getByLabel('Action').fill('template.create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=template.create/);
    const expected = (await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=template.create&limit=200`, { key: org.key })).body.items.length;
    assert.ok(expected >= 4, `${expected} template.create entries`);
    // Polled from here: waitForFunction polls a string predicate that is false at first with eval()
    // in the page, which the app's CSP refuses (a flake whenever the table was not filtered yet).
    const rows = () => page.evaluate(`document.querySelectorAll('table[aria-label="Audit entries"] tbody tr').length`);
    await waitFor(async () => (await rows()) === expected, `${expected} filtered rows`, 10_000);
    const actions = await table.locator('tbody tr td:nth-child(3)').allInnerTexts();
    assert.deepEqual([...new Set(actions)], ['template.create']);
    // Each entry shows the request's correlation id.
    const ids = await table.locator('tbody tr td:nth-child(6)').allInnerTexts();
    assert.ok(
      ids.every((id) => id.length > 8),
      ids.join(','),
    );

    // The actor shows by name (the org's first API key), and one click narrows the log to it.
    await table.getByRole('button', { name: 'first key' }).first().click();
    await page.waitForURL(new RegExp(`actorId=${org.keyId}`));
    assert.equal(await page.getByLabel('Actor id').inputValue(), org.keyId);

    // A date range that ends before today finds nothing.
    await page.getByLabel('To (inclusive)').fill('2020-01-01');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entries match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await table.waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'audit');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a member is offered none of these pages', async () => {
    const member = await userWithPassword(server, org, 'member');
    const { page, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/signature`, member);
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    for (const name of ['Templates', 'Images', 'API keys', 'Audit log']) assert.ok(!links.includes(name), `member offered ${name}`);
    await context.close();
  });
});
