// The Templates pages in a real browser, as an org's owner: create from the list, edit in
// CodeMirror and see the service's preview change, insert an uploaded image, set the default, a
// save that lost a race (409) offering to reload or keep editing, delete; axe on each page.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestServer } from './helpers/server.ts';
import { createTemplate, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { png } from './helpers/images.ts';
import { screenshot } from './helpers/screenshots.ts';

const skip = browserUnavailable();

/** Types at the end of a CodeMirror editor found by its accessible name. */
async function typeAtEnd(page: Page, editor: string, text: string) {
  const box = page.getByRole('textbox', { name: editor });
  await box.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText(text);
}

describe('the Templates pages', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let owner: Person;
  browserSuite({ org: { name: 'Acme Rockets', starterTemplates: false }, person: 'owner' }, (s) => ({ server, browser, org, person: owner } = s));
  before(async () => {
    const current = await server.request('GET', `/v1/orgs/${org.orgId}/users/${owner.userId}`, { key: org.key });
    await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${owner.userId}`, {
      key: org.key,
      body: { version: current.body.version, name: 'Wile E. Coyote', title: 'Chief Engineer' },
    });
  });

  test('create a template, edit it, watch the preview change, insert an image, save, set default, delete', async () => {
    const image = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: new Uint8Array(png(240, 80)),
    }).then((r) => r.json() as Promise<{ url: string }>);
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/templates`, owner);
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the list');

    await page.getByRole('button', { name: 'New template' }).click();
    const dialog = page.getByRole('dialog', { name: 'New template' });
    // The service's starters are offered, as a gallery, besides a blank HTML template (GET …/templates/starters).
    const gallery = dialog.getByRole('group', { name: 'Start from' });
    await gallery.getByRole('button', { name: /Two columns/ }).waitFor();
    const designs = await gallery.getByRole('button').allInnerTexts();
    for (const starter of ['Classic', 'Compact (one line)', 'Two columns'])
      assert.ok(
        designs.some((d) => d.startsWith(starter)),
        `${starter} in ${designs.join(', ')}`,
      );
    assert.equal(await gallery.getByRole('button', { name: /Blank \(HTML\)/ }).getAttribute('aria-pressed'), 'true');
    await dialog.getByLabel('Name').fill('Main signature');
    await dialog.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Template: Main signature' }).waitFor();

    // The preview renders the blank design as the signed-in owner, through the service.
    const preview = page.frameLocator('iframe[title="Signature preview"]');
    await preview.getByText('Wile E. Coyote').waitFor();
    assert.equal(await page.locator('iframe[title="Signature preview"]').getAttribute('sandbox'), '', 'the preview runs nothing');

    await typeAtEnd(page, 'HTML signature (Liquid)', '\n<p>Call {{ user.title | upcase }} at {{ org.name }}</p>');
    await preview.getByText('Call CHIEF ENGINEER at Acme Rockets').waitFor();
    await page.getByText('Unsaved changes').waitFor();
    await page.getByText(/Rendered size: \d+\.\d KB of 30 KB/).waitFor();

    // Completion of the merge fields after `user.`.
    await typeAtEnd(page, 'HTML signature (Liquid)', '\n{{ user.');
    await page.getByRole('option', { name: /department/ }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.insertText('department }}');

    // Insert the uploaded image at the cursor: its URL and size go into the source and the preview.
    await page.getByRole('button', { name: 'Insert image' }).click();
    const picker = page.getByRole('dialog', { name: 'Insert an image' });
    await picker.getByLabel('Alternative text').fill('Acme logo');
    await picker.getByRole('button', { name: /Insert image 240×80/ }).click();
    await preview.locator(`img[src="${image.url}"][width="240"][height="80"][alt="Acme logo"]`).waitFor({ state: 'attached' });
    assert.deepEqual(await seriousViolations(page), [], 'the editor');
    await screenshot(page, 'template-editor');

    // The service's warnings show as you type: an image without a size.
    await typeAtEnd(page, 'HTML signature (Liquid)', `<img src="${image.url}" alt="">`);
    const warnings = page.getByRole('region', { name: 'Warnings' });
    await warnings.getByText('An image has no width and height attributes').waitFor();
    await page.keyboard.press('Control+z');
    await warnings.getByText('None: this signature should show well').waitFor();

    // Past the 30 KB render limit, the meter says so (the preview's 413 carries the size).
    await typeAtEnd(page, 'HTML signature (Liquid)', `<p>${'x'.repeat(31_000)}</p>`);
    await page.getByText('Over the limit: the service refuses to render this signature').waitFor();
    await page.getByText(/Rendered size: 3\d\.\d KB of 30 KB/).waitFor();
    // Undo (CodeMirror's history) takes the long paragraph out again.
    await page.keyboard.press('Control+z');
    await page.getByText('Over the limit: the service refuses').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Phone' }).click();
    assert.equal(await page.getByRole('button', { name: 'Phone' }).getAttribute('aria-pressed'), 'true');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved (version 2).').waitFor();
    const list = (await server.request('GET', `/v1/orgs/${org.orgId}/templates`, { key: org.key })).body.items;
    const saved = list.find((t: { name: string }) => t.name === 'Main signature');
    assert.match(saved.html, /Call \{\{ user\.title \| upcase \}\} at \{\{ org\.name \}\}/);
    assert.ok(saved.html.includes(image.url));
    assert.ok(saved.html.includes('{{ user.department }}'));

    // A second template, made the default from its editor.
    const second = await createTemplate(server, org, { name: 'Campaign', isDefault: false });
    await page.goto(`${server.url}/app/templates/${second.templateId}`);
    await page.getByRole('button', { name: 'Set as default' }).click();
    await page.getByText('This is now the default template.').waitFor();
    const after = (await server.request('GET', `/v1/orgs/${org.orgId}/templates/${second.templateId}`, { key: org.key })).body;
    assert.equal(after.isDefault, true);

    // Delete, with a confirmation.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this template?' }).getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/templates/${second.templateId}`, { key: org.key })).status, 404);
    await page.getByRole('link', { name: 'Main signature' }).waitFor();
    // The default was deleted: the list says nobody's signature can be rendered until one is chosen.
    await page.getByText('No template is the default').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the list');
    await screenshot(page, 'templates');
    // The browser logs every refused request: here the previews of a half-typed expression
    // (`{{ user.`, a 400 the page shows as the preview's error), the preview over 30 KB (413, the
    // meter's "over the limit") and a 404 the page handles (the starters route is not it: the dialog
    // listed the starters above).
    assert.deepEqual(
      errors.filter((e) => !/status of (400|404|413)/.test(e)),
      [],
    );
    await context.close();
  });

  test('a save that lost a race says so; reload takes theirs, keep editing saves over it', async () => {
    const template = await createTemplate(server, org, { name: 'Contested', html: '<p>Original {{ user.name }}</p>', isDefault: false });
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/templates/${template.templateId}`, owner);
    await page.getByRole('heading', { level: 1, name: 'Template: Contested' }).waitFor();

    // Someone else saves while this page edits.
    const theirs = await server.request('PATCH', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, {
      key: org.key,
      body: { version: template.version, html: '<p>Theirs {{ user.name }}</p>' },
    });
    assert.equal(theirs.status, 200);
    await typeAtEnd(page, 'HTML signature (Liquid)', '<p>Mine</p>');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Someone else saved this template' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /version 2/);
    assert.deepEqual(await seriousViolations(page), [], 'the conflict notice');

    // Reload: their version replaces the draft.
    await alert.getByRole('button', { name: 'Reload their version' }).click();
    await page.frameLocator('iframe[title="Signature preview"]').getByText('Theirs Wile E. Coyote').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'HTML signature (Liquid)' }).innerText(), '<p>Theirs {{ user.name }}</p>');

    // Another race, and this time keep editing: the next save replaces theirs.
    const again = await server.request('PATCH', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, {
      key: org.key,
      body: { version: 2, html: '<p>Third {{ user.name }}</p>' },
    });
    assert.equal(again.status, 200);
    await typeAtEnd(page, 'HTML signature (Liquid)', '<p>Mine again</p>');
    await page.keyboard.press('Control+s'); // the editor's shortcut, from inside CodeMirror
    await alert.waitFor();
    await alert.getByRole('button', { name: /Keep editing/ }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved (version 4).').waitFor();
    const final = (await server.request('GET', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, { key: org.key })).body;
    assert.equal(final.html, '<p>Theirs {{ user.name }}</p><p>Mine again</p>');
    assert.deepEqual(
      errors.filter((e) => !/409|412/.test(e)),
      [],
    );
    await context.close();
  });
});
