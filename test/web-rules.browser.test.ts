// The Rules page in a real browser, as an admin: the rules in order, and "who gets what": a Sales
// person's signature for a new message and for a reply, each naming its rule and template, and an
// Engineering person's default; no accessibility violations of serious or critical impact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';

const skip = browserUnavailable();

describe('the Rules page', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  browserSuite({}, (s) => ({ server, browser, org } = s));

  test('an admin sees the rules and, for a chosen person, the rule and signature of a new message and of a reply', async () => {
    const long = await createTemplate(server, org, { name: 'Sales long', html: '<p>Long one for {{ user.name }}</p>' });
    const short = await createTemplate(server, org, { name: 'Sales short', html: '<p>Short one for {{ user.name }}</p>' });
    await createUser(server, org, { name: 'Sally Sales', department: 'Sales' });
    await createUser(server, org, { name: 'Eddie Engineer', department: 'Engineering' });
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/rules`, {
      key: org.key,
      body: [{ name: 'Sales team', when: { departments: ['Sales'] }, templateId: long.templateId, replyTemplateId: short.templateId }],
    });
    assert.equal(put.status, 200, put.text);
    const admin = await userWithPassword(server, org, 'admin');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/rules`, admin);
    await page.getByRole('heading', { level: 1, name: 'Rules' }).waitFor();
    const table = page.getByRole('table', { name: 'Rules' });
    await table.getByRole('cell', { name: 'Sales team' }).waitFor();
    // The templates' names replace their ids once the page's list of templates has loaded.
    await table.getByRole('cell', { name: 'Sales short' }).waitFor();
    assert.match(await table.innerText(), /department is Sales[\s\S]*Sales long[\s\S]*Sales short/);

    await page.getByLabel('Find a person').fill('Sally');
    const person = page.getByLabel('Person', { exact: true });
    await person.locator('option', { hasText: 'Sally Sales' }).waitFor({ state: 'attached' });
    await person.selectOption({ label: (await person.locator('option', { hasText: 'Sally Sales' }).innerText()).trim() });
    await page.getByRole('region', { name: 'New message' }).getByText('Sales team').waitFor();
    await page.frameLocator('iframe[title="Signature for a new message"]').getByText('Long one for Sally Sales').waitFor();
    await page.getByRole('region', { name: 'Reply or forward' }).getByText('Sales short').waitFor();
    await page.frameLocator('iframe[title="Signature for a reply"]').getByText('Short one for Sally Sales').waitFor();
    await screenshot(page, 'rules');
    // At 390 px the page fits the screen: wide tables scroll inside their frame.
    await page.setViewportSize({ width: 390, height: 844 });
    await waitFor(async () => (await page.evaluate('document.documentElement.scrollWidth')) === 390, 'the Rules page fits 390 px');
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.getByLabel('Find a person').fill('Eddie');
    await person.locator('option', { hasText: 'Eddie Engineer' }).waitFor({ state: 'attached' });
    await person.selectOption({ label: (await person.locator('option', { hasText: 'Eddie Engineer' }).innerText()).trim() });
    await page.getByRole('region', { name: 'New message' }).getByText('No rule matched: the default template').waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
