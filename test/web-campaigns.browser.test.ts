// The Campaigns page in a real browser, as an admin: schedule a campaign with two variants for
// Sales, see it active in the list, its banner in a Sales person's preview and not in an
// Engineering person's, then end it now; no accessibility violations of serious or critical impact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';
import { png } from './helpers/images.ts';

const skip = browserUnavailable();

describe('the Campaigns page', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  browserSuite({}, (s) => ({ server, browser, org } = s));

  test('an admin schedules a two-variant campaign for Sales: in a Sales preview, not in an Engineering one; then ends it', async () => {
    await createTemplate(server, org, { name: 'Banner', html: '<p>{{ user.name }}</p>{{ campaign.banner | raw }}', isDefault: true });
    for (const size of [
      [600, 100],
      [600, 120],
    ] as const) {
      const res = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
        method: 'POST',
        headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
        body: new Uint8Array(png(size[0], size[1])),
      });
      assert.equal(res.status, 201);
    }
    await createUser(server, org, { name: 'Sally Sales', department: 'Sales' });
    await createUser(server, org, { name: 'Eddie Engineer', department: 'Engineering' });
    const admin = await userWithPassword(server, org, 'admin');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/campaigns`, admin);
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();

    const form = page.getByRole('form', { name: 'Schedule a campaign' });
    await form.getByLabel('Name').fill('Spring launch');
    await form.getByLabel('Departments').fill('Sales');
    for (const [i, n] of [
      [1, 600],
      [2, 600],
    ] as const) {
      const select = form.getByLabel(`Variant ${i} image`);
      await select.locator('option', { hasText: `${n}×${i === 1 ? 100 : 120}` }).waitFor({ state: 'attached' });
      await select.selectOption({ index: 1 + (i - 1) });
      await form.getByLabel(`Variant ${i} link`).fill(`https://spring.example/v${i}`);
      await form.getByLabel(`Variant ${i} text`).fill(`Spring ${i}`);
      await form.getByLabel(`Variant ${i} weight`).fill('1');
    }
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
    await pick('Eddie Engineer');
    assert.equal(await page.frameLocator('iframe[title="Signature preview"]').locator('img').count(), 0, 'no banner for Engineering');
    assert.deepEqual(await seriousViolations(page), []);

    // A click on Sally's banner (as a person's browser), then the stats page shows it.
    const sallyId = (await server.request('GET', `/v1/orgs/${org.orgId}/users?q=Sally`, { key: org.key })).body.items[0].userId as string;
    const sig = await server.request('GET', `/v1/orgs/${org.orgId}/users/${sallyId}/signature`, { key: org.key });
    const href = /href="([^"]+)"/.exec(sig.body.html)![1]!.replaceAll('&amp;', '&');
    const hop = await fetch(href, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Safari/605.1.15' } });
    assert.equal(hop.status, 302);
    assert.match(hop.headers.get('location') ?? '', /^https:\/\/spring\.example\/v[12]$/);
    await page.getByRole('link', { name: 'Stats of Spring launch' }).click();
    await page.getByRole('heading', { level: 1, name: 'Campaign stats' }).waitFor();
    const variants = page.getByRole('table', { name: 'Variants' });
    await variants.getByRole('cell', { name: 'Spring 1', exact: true }).waitFor();
    const rows = await variants.locator('tbody tr').allInnerTexts();
    const cells = rows.map((r) => r.split('\t').map((c) => c.trim()));
    assert.equal(cells.length, 2);
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
    assert.ok(cells.reduce((n, c) => n + Number(c[1]), 0) >= 2, 'impressions: the previews and the signature served');
    await page.getByRole('img', { name: "Impressions and people's clicks per day" }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('link', { name: 'All campaigns' }).click();

    await page.getByRole('button', { name: 'End now: Spring launch' }).click();
    await table.getByRole('cell', { name: 'ended', exact: true }).waitFor();
    await pick('Sally Sales');
    await page.frameLocator('iframe[title="Signature preview"]').getByText('Sally Sales').waitFor();
    assert.equal(await page.frameLocator('iframe[title="Signature preview"]').locator('img').count(), 0, 'no banner once ended');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
