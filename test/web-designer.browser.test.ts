// The signature designer in a real browser, as an org's owner: pick a starter from the gallery,
// add a social block, reorder the blocks with the keyboard, change the accent colour and see the
// preview follow, save (the service compiles the design), preview as a member, leave with unsaved
// changes and be asked, switch to the HTML editor; axe on the designer; screenshots at 1280 and
// 390 px (SCREENSHOTS=1).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestServer } from './helpers/server.ts';
import { waitFor } from './helpers/wait.ts';
import { createUser, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';
import { STARTER_DESIGNS } from '../src/designer/starters.ts';

const skip = browserUnavailable();

/**
 * A screenshot of the whole page with the preview in it: Chromium draws a sandboxed frame (its own
 * process) blank in a full-page capture that resizes the view, so the view is made as tall as the
 * page first, and the preview waited for again.
 */
async function tallScreenshot(page: Page, name: string, width: number, text: string) {
  if (process.env.SCREENSHOTS !== '1') return;
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  await page.setViewportSize({ width, height });
  await page.frameLocator('iframe[title="Signature preview"]').getByText(text).first().waitFor();
  await screenshot(page, name);
  await page.setViewportSize({ width, height: width > 600 ? 860 : 844 });
}

/** The blocks' types, in the order the list shows them. */
const order = (page: Page) =>
  page
    .getByRole('list', { name: 'Blocks, in order' })
    .locator('li')
    .evaluateAll((items) => items.map((li) => (li as { getAttribute(name: string): string | null }).getAttribute('data-block')));

describe('the signature designer', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let owner: Person;
  browserSuite({ org: { name: 'Acme Rockets', starterTemplates: false }, person: 'owner' }, (s) => ({ server, browser, org, person: owner } = s));

  test('pick a starter, add a social block, reorder by keyboard, recolour, save; leaving unsaved asks', async () => {
    const member = await createUser(server, org, { name: 'Road Runner', title: 'Speed Consultant' });
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/templates`, owner);
    await page.getByRole('button', { name: 'New template' }).click();
    const dialog = page.getByRole('dialog', { name: 'New template' });
    const gallery = dialog.getByRole('group', { name: 'Start from' });
    const classic = gallery.getByRole('button', { name: /^Classic/ });
    await classic.click();
    assert.equal(await classic.getAttribute('aria-pressed'), 'true');
    assert.ok((await gallery.locator('img').count()) >= 8, 'at least 8 starters, each with its thumbnail');
    await dialog.getByLabel('Name').fill('Designed');
    await dialog.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Design: Designed' }).waitFor();

    // The preview: the design compiled by the service, shown as a sample person with every field filled.
    const frame = page.frameLocator('iframe[title="Signature preview"]');
    await frame.getByText('Alex Morgan').waitFor();
    await frame.getByText('they/them').waitFor();
    assert.deepEqual(await order(page), ['identity', 'html', 'divider', 'contact']);
    await frame.getByText('Acme Rockets').waitFor();

    // Add a social block: it lands last, selected, and the preview shows its icons.
    await page.getByLabel('Block to add').selectOption({ label: 'Social links' });
    await page.getByRole('button', { name: 'Add block' }).click();
    assert.deepEqual(await order(page), ['identity', 'html', 'divider', 'contact', 'social']);
    await page.getByRole('heading', { name: 'Social links: settings' }).waitFor();
    await page.getByRole('checkbox', { name: 'GitHub' }).check();
    await frame.locator('img[alt="GitHub"]').waitFor({ state: 'attached' });

    // Reorder with the keyboard: the social block's handle, Space, Arrow up twice, Space.
    // Each step waits for the handle to be picked up, then for what dnd-kit announces (its live region).
    const handle = page.getByRole('button', { name: 'Move Social links, block 5', exact: true });
    await handle.focus();
    await page.keyboard.press('Space');
    await page.locator('[aria-label="Move Social links, block 5"][aria-pressed="true"]').waitFor();
    // Once its keyboard sensor listens, dnd-kit announces the block over its own place: an arrow
    // pressed before that is lost.
    await page.getByText('Social links is over position 5.').waitFor({ state: 'attached' });
    await page.keyboard.press('ArrowUp');
    await page.getByText('Social links is over position 4.').waitFor({ state: 'attached' });
    await page.keyboard.press('ArrowUp');
    await page.getByText('Social links is over position 3.').waitFor({ state: 'attached' });
    await page.keyboard.press('Space');
    await waitFor(async () => (await order(page))[2] === 'social', 'the social block moved up two places');
    assert.deepEqual(await order(page), ['identity', 'html', 'social', 'divider', 'contact']);

    // The accent colour: the preview's rule and labels take it.
    await page.getByLabel('Accent colour').fill('#d40000');
    await frame.locator('[style*="#d40000"]').first().waitFor({ state: 'attached' });
    await page.getByText('Unsaved changes').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the designer');
    await tallScreenshot(page, 'designer', 1280, 'Alex Morgan');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved (version 2).').waitFor();
    const list = (await server.request('GET', `/v1/orgs/${org.orgId}/templates`, { key: org.key })).body.items;
    const saved = (
      await server.request('GET', `/v1/orgs/${org.orgId}/templates/${list.find((t: { name: string }) => t.name === 'Designed').templateId}`, { key: org.key })
    ).body;
    assert.equal(saved.source, 'design');
    assert.deepEqual(
      saved.design.blocks.map((b: { type: string }) => b.type),
      ['identity', 'html', 'social', 'divider', 'contact'],
    );
    assert.deepEqual(saved.design.blocks[2].networks, ['linkedin', 'github']);
    assert.equal(saved.design.style.accentColor, '#d40000');
    assert.ok(saved.html.includes('#d40000'), 'the compiled html carries the accent');

    // Preview as a member of the org (the service's render of the compiled template).
    await page.getByRole('radio', { name: 'Someone in your organisation' }).check();
    await page.getByLabel('Find a person').fill('Road');
    await page.getByLabel('Preview as', { exact: true }).selectOption({ label: `Road Runner — ${member.email}` });
    await frame.getByText('Speed Consultant').waitFor();
    await page.getByRole('button', { name: 'Dark mode' }).click();
    assert.equal(await page.locator('iframe[title="Signature preview"]').getAttribute('data-view'), 'dark');

    // Unsaved changes: a click on Users asks; Cancel stays, with the change kept.
    // A half pixel is a size the API takes (DECISIONS: a number), and the field takes it too.
    await page.getByLabel('Font size (px)').fill('14.5');
    assert.equal(await page.getByLabel('Font size (px)').evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid), true);
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    const ask = page.getByRole('dialog', { name: 'Leave without saving?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { level: 1, name: 'Design: Designed' }).waitFor();
    assert.equal(await page.getByLabel('Font size (px)').inputValue(), '14.5');
    // Save first, then "Edit as HTML" opens the code editor on the compiled template.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved (version 3).').waitFor();
    await page.getByRole('button', { name: 'Edit as HTML' }).click();
    await page.getByRole('textbox', { name: 'HTML signature (Liquid)' }).waitFor();
    // And back: the design is compiled again (PATCH {design}), the designer opens on it.
    await page.getByRole('button', { name: 'Back to the designer' }).click();
    await page.getByRole('dialog', { name: 'Back to the designer?' }).getByRole('button', { name: 'Use the design' }).click();
    await page.getByRole('heading', { level: 1, name: 'Design: Designed' }).waitFor();
    assert.equal(await page.getByLabel('Font size (px)').inputValue(), '14.5');
    // Icons are served by the coordinator's public route; a 404 for one while it is absent is not this page's.
    assert.deepEqual(
      errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
    await context.close();
  });

  test('the designer at 390 px: one column, the preview below, nothing off screen; the org’s custom fields in the field picker', async () => {
    const design = STARTER_DESIGNS.find((s) => s.design.layout === 'side-by-side')!.design;
    const created = await server.request('POST', `/v1/orgs/${org.orgId}/templates`, { key: org.key, body: { name: 'On a phone', design } });
    assert.equal(created.status, 201, created.text);
    const fields = await server.request('PUT', `/v1/orgs/${org.orgId}/fields`, {
      key: org.key,
      body: [{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: false }],
    });
    assert.equal(fields.status, 200, fields.text);
    const { page, errors, context } = await openPage(browser, { viewport: { width: 390, height: 844 } });
    // The first compile is refused as an instance's would be while its database is unreachable
    // (503): the preview tries again by itself rather than waiting for the next edit.
    let compiles = 0;
    await page.route('**/templates/compile', (route) =>
      compiles++ === 0
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            headers: { 'retry-after': '5' },
            body: JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unreachable; retry in 5 seconds.', correlationId: 'c' } }),
          })
        : route.continue(),
    );
    await signInThroughApp(page, `${server.url}/app/templates/${created.body.templateId}`, owner);
    await page.getByRole('heading', { level: 1, name: 'Design: On a phone' }).waitFor();
    await page.frameLocator('iframe[title="Signature preview"]').getByText('Alex Morgan').waitFor();
    assert.ok(compiles >= 2, `the refused compile was tried again (${compiles} compiles)`);
    // The field picker of a custom HTML block lists the org's custom fields.
    await page.getByLabel('Block to add').selectOption({ label: 'Custom HTML' });
    await page.getByRole('button', { name: 'Add block' }).click();
    await page.getByRole('group', { name: 'Insert a field' }).getByRole('button', { name: 'Booking link' }).click();
    assert.match(await page.getByLabel('HTML (Liquid)').inputValue(), /\{\{ user\.attributes\.booking_link \}\}$/);
    await page.frameLocator('iframe[title="Signature preview"]').getByText('Sample booking link').waitFor();
    const wide = await page.evaluate(
      `[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > 391).map((e) => e.tagName + '.' + e.className).slice(0, 8)`,
    );
    assert.deepEqual(wide, [], 'nothing runs off the right edge');
    assert.deepEqual(await seriousViolations(page), [], 'the designer at 390 px');
    await tallScreenshot(page, 'designer-phone', 390, 'Alex Morgan');
    assert.deepEqual(
      errors.filter((e) => !/status of (404|503)/.test(e)),
      [],
    );
    await context.close();
  });
});
