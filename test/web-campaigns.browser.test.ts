// The Campaigns page in a real browser, as an admin: schedule a campaign with three variants for
// Sales, see it active in the list, its banner in a Sales person's preview and not in an
// Engineering person's (previews count no impression), then end it now; schedule one for an
// audience of a chosen person, an email domain and a custom field's value; no accessibility
// violations of serious or critical impact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createTemplate, createUser, userWithPassword, type TestOrg, uploadPng } from './helpers/fixtures.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';

const skip = browserUnavailable();

describe('the Campaigns page', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  browserSuite({}, (s) => ({ server, browser, org } = s));

  test('an admin schedules a three-variant campaign for Sales: in a Sales preview, not in an Engineering one; then ends it', async () => {
    await createTemplate(server, org, { name: 'Banner', html: '<p>{{ user.name }}</p>{{ campaign.banner | raw }}', isDefault: true });
    const imageIds: string[] = [];
    for (const size of [
      [600, 100],
      [600, 120],
      [600, 140],
    ] as const) {
      imageIds.push(await uploadPng(server, org, size[0], size[1]));
    }
    await createUser(server, org, { name: 'Sally Sales', department: 'Sales' });
    const fields = await server.request('PUT', `/v1/orgs/${org.orgId}/fields`, {
      key: org.key,
      body: [{ key: 'office', label: 'Office', type: 'text', selfService: false }],
    });
    assert.equal(fields.status, 200, fields.text);
    await createUser(server, org, { name: 'Eddie Engineer', department: 'Engineering', attributes: { office: 'Berlin' } });
    const admin = await userWithPassword(server, org, 'admin');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/campaigns`, admin);
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();

    const form = page.getByRole('form', { name: 'Schedule a campaign' });
    await form.getByLabel('Name').fill('Spring launch');
    await form.getByLabel('Departments').fill('Sales');
    await form.getByRole('button', { name: 'Add a variant' }).click();
    await form.getByRole('button', { name: 'Add a variant' }).click();
    for (const i of [1, 2, 3]) {
      const select = form.getByLabel(`Variant ${i} image`);
      await select.locator('option', { hasText: `600×${80 + 20 * i}` }).waitFor({ state: 'attached' });
      await select.selectOption({ label: (await select.locator('option', { hasText: `600×${80 + 20 * i}` }).innerText()).trim() });
      await form.getByLabel(`Variant ${i} link`).fill(`https://spring.example/v${i}`);
      await form.getByLabel(`Variant ${i} text`).fill(`Spring ${i}`);
      await form.getByLabel(`Variant ${i} weight`).fill(String(i));
    }
    await form.getByLabel('UTM source').fill('signature');
    await form.getByLabel('UTM medium').fill('email');
    await form.getByLabel('UTM campaign').fill('spring');
    await screenshot(page, 'campaign-form');
    await form.getByRole('button', { name: 'Schedule' }).click();
    const table = page.getByRole('table', { name: 'Campaigns' });
    await table.getByRole('cell', { name: 'Spring launch', exact: true }).waitFor();
    assert.match(await table.innerText(), /Spring launch\s+active/);

    const preview = page.getByRole('region', { name: 'Preview' });
    const pick = async (name: string) => {
      await preview.getByLabel('Find a person').fill(name.split(' ')[0] as string);
      const select = preview.getByLabel('Preview as');
      await select.locator('option', { hasText: name }).waitFor({ state: 'attached' });
      await select.selectOption({ label: (await select.locator('option', { hasText: name }).innerText()).trim() });
      await page.frameLocator('iframe[title="Signature preview"]').getByText(name).waitFor();
    };
    await pick('Sally Sales');
    await page.frameLocator('iframe[title="Signature preview"]').locator('img[alt^="Spring "]').waitFor();
    // The banner's tracked link, followed from the preview, is a look: it records no click.
    const previewHref = await page.frameLocator('iframe[title="Signature preview"]').locator('a:has(img[alt^="Spring "])').getAttribute('href');
    assert.match(previewHref ?? '', /\/v1\/c\/[A-Za-z0-9_.-]+\?preview=true$/);
    await screenshot(page, 'campaigns');
    // At 390 px the page fits the screen: wide tables scroll inside their frame.
    await page.setViewportSize({ width: 390, height: 844 });
    await waitFor(async () => (await page.evaluate('document.documentElement.scrollWidth')) === 390, 'the Campaigns page fits 390 px');
    await page.setViewportSize({ width: 1280, height: 860 });
    await pick('Eddie Engineer');
    assert.equal(await page.frameLocator('iframe[title="Signature preview"]').locator('img').count(), 0, 'no banner for Engineering');
    assert.deepEqual(await seriousViolations(page), []);

    // A click on Sally's banner (as a person's browser), then the stats page shows it.
    const sallyId = (await server.request('GET', `/v1/orgs/${org.orgId}/users?q=Sally`, { key: org.key })).body.items[0].userId as string;
    const sig = await server.request('GET', `/v1/orgs/${org.orgId}/users/${sallyId}/signature`, { key: org.key });
    const href = /href="([^"]+)"/.exec(sig.body.html)![1]!.replaceAll('&amp;', '&');
    const hop = await fetch(href, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Safari/605.1.15' } });
    assert.equal(hop.status, 302);
    assert.match(hop.headers.get('location') ?? '', /^https:\/\/spring\.example\/v[123]\?utm_source=signature&utm_medium=email&utm_campaign=spring$/);
    await page.getByRole('link', { name: 'Stats of Spring launch' }).click();
    await page.getByRole('heading', { level: 1, name: 'Campaign stats' }).waitFor();
    const variants = page.getByRole('table', { name: 'Variants' });
    await variants.getByRole('cell', { name: 'Spring 1', exact: true }).waitFor();
    const rows = await variants.locator('tbody tr').allInnerTexts();
    const cells = rows.map((r) => r.split('\t').map((c) => c.trim()));
    assert.equal(cells.length, 3, 'three variants');
    assert.equal(
      cells.reduce((n, c) => n + Number(c[2]), 0),
      1,
      `one click in all: ${JSON.stringify(cells)}`,
    );
    assert.equal(
      cells.reduce((n, c) => n + Number(c[3]), 0),
      1,
      'by a person',
    );
    assert.equal(
      cells.reduce((n, c) => n + Number(c[1]), 0),
      1,
      'impressions: the signature served, not the previews',
    );
    await page.getByRole('img', { name: "Impressions and people's clicks per day" }).waitFor();
    await screenshot(page, 'campaign-stats');
    // At 390 px the page fits the screen: wide tables scroll inside their frame.
    await page.setViewportSize({ width: 390, height: 844 });
    await waitFor(async () => (await page.evaluate('document.documentElement.scrollWidth')) === 390, 'the Campaign stats page fits 390 px');
    await page.setViewportSize({ width: 1280, height: 860 });
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('link', { name: 'All campaigns' }).click();
    await form.getByLabel('Starts').waitFor();

    // The browser's clock runs ten minutes ahead: "End now" still ends it at the server's time,
    // not ten minutes from now (the banner would stay up until then).
    // (The page's own Date, not page.clock: Playwright's clock is injected into the sandboxed
    // signature previews too, where scripts are blocked and say so on the console.)
    await page.evaluate(() => {
      const Real = Date;
      const ahead = 10 * 60_000;
      class Ahead extends Real {
        constructor(...args: ConstructorParameters<DateConstructor> | []) {
          if (args.length === 0) super(Real.now() + ahead);
          else super(...(args as ConstructorParameters<DateConstructor>));
        }
        static override now() {
          return Real.now() + ahead;
        }
      }
      globalThis.Date = Ahead as DateConstructor;
    });
    await page.getByRole('button', { name: 'End now: Spring launch' }).click();
    await table.getByRole('cell', { name: 'ended', exact: true }).waitFor();
    const spring = (await server.request('GET', `/v1/orgs/${org.orgId}/campaigns`, { key: org.key })).body.items.find(
      (c: { name: string }) => c.name === 'Spring launch',
    ) as { endsAt: string; status: string };
    assert.equal(spring.status, 'ended');
    assert.ok(Date.parse(spring.endsAt) <= Date.now(), `ended by the server's clock: ${spring.endsAt}`);

    await pick('Sally Sales');
    await page.frameLocator('iframe[title="Signature preview"]').getByText('Sally Sales').waitFor();
    assert.equal(await page.frameLocator('iframe[title="Signature preview"]').locator('img').count(), 0, 'no banner once ended');

    // The schedule form mounted again, under the clock ten minutes ahead: its start left as it is,
    // the next campaign starts now by the server's clock, not ten minutes from now.
    await page.getByRole('link', { name: 'Stats of Spring launch' }).click();
    await page.getByRole('heading', { level: 1, name: 'Campaign stats' }).waitFor();
    await page.getByRole('link', { name: 'All campaigns' }).click();
    await form.getByLabel('Starts').waitFor();

    // An audience of another kind: a chosen person, an email domain and a custom field's value.
    await form.getByLabel('Name').fill('Berlin office');
    await form.getByLabel('Find a person to add').fill('Eddie');
    const add = form.getByLabel('Add a person');
    await add.locator('option', { hasText: 'Eddie Engineer' }).waitFor({ state: 'attached' });
    await add.selectOption({ label: (await add.locator('option', { hasText: 'Eddie Engineer' }).innerText()).trim() });
    await form.getByRole('list', { name: 'Chosen people' }).getByText('Eddie Engineer').waitFor();
    await form.getByLabel('Email domains').fill('example.test');
    await form.getByRole('button', { name: 'Add a field condition' }).click();
    await form.getByLabel('Field 1', { exact: true }).selectOption('office');
    await form.getByLabel('Field 1 value').fill('Berlin');
    const image = form.getByLabel('Variant 1 image');
    await image.selectOption({ label: (await image.locator('option', { hasText: '600×100' }).innerText()).trim() });
    await form.getByLabel('Variant 1 link').fill('https://berlin.example/');
    await form.getByLabel('Variant 1 text').fill('Berlin banner');
    await screenshot(page, 'campaign-audience');
    await form.getByRole('button', { name: 'Schedule' }).click();
    await table.getByRole('cell', { name: 'Berlin office', exact: true }).waitFor();
    const listed = (await server.request('GET', `/v1/orgs/${org.orgId}/campaigns`, { key: org.key })).body.items as {
      name: string;
      status: string;
      startsAt: string;
      audience: Record<string, unknown>;
    }[];
    const berlin = listed.find((c) => c.name === 'Berlin office');
    assert.equal(berlin?.status, 'active', `started now by the server's clock: ${berlin?.startsAt}`);
    const eddieId = (await server.request('GET', `/v1/orgs/${org.orgId}/users?q=Eddie`, { key: org.key })).body.items[0].userId as string;
    assert.deepEqual(listed.find((c) => c.name === 'Berlin office')?.audience, {
      userIds: [eddieId],
      attributes: { office: 'Berlin' },
      emailDomains: ['example.test'],
    });
    await pick('Eddie Engineer');
    await page.frameLocator('iframe[title="Signature preview"]').locator('img[alt="Berlin banner"]').waitFor();
    await pick('Sally Sales');
    assert.equal(await page.frameLocator('iframe[title="Signature preview"]').locator('img').count(), 0, 'not for someone outside the audience');

    // A campaign not started yet is cancelled, not ended (ending it before its start is a 400).
    const later = await server.request('POST', `/v1/orgs/${org.orgId}/campaigns`, {
      key: org.key,
      body: {
        name: 'Summer sale',
        startsAt: new Date(Date.now() + 86_400_000).toISOString(),
        audience: {},
        variants: [{ imageId: imageIds[0], link: 'https://summer.example/', alt: 'Summer', weight: 1 }],
      },
    });
    assert.equal(later.status, 201, JSON.stringify(later.body));
    await page.reload();
    await table.getByRole('cell', { name: 'Summer sale', exact: true }).waitFor();
    await screenshot(page, 'campaigns-list');
    assert.equal(await page.getByRole('button', { name: 'End now: Summer sale' }).count(), 0, 'a scheduled campaign offers no "End now"');
    await page.getByRole('button', { name: 'Cancel: Summer sale' }).click();
    await table.getByRole('cell', { name: 'Summer sale', exact: true }).waitFor({ state: 'detached' });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${later.body.campaignId}`, { key: org.key })).status, 404);
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
