// SCIM in the dashboard, in a real browser as an org's admin: the Integrations card generates the
// token (shown once), shows the base URL, the last request and the steps; the Users page then
// shows what the identity provider pushed: a group to filter by, a suspended user, restored by a
// click. axe on both pages; no console errors.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './helpers/wait.ts';
import type { TestServer } from './helpers/server.ts';
import type { TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';

const skip = browserUnavailable();
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM in the dashboard', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let admin: Person;
  browserSuite({ org: { name: 'Acme Rockets', seats: 20 }, person: 'admin' }, (s) => ({ server, browser, org, person: admin } = s));

  test('generate the token, provision through it, see the group and the suspended user, restore them', async () => {
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/integrations`, admin);
    const card = page.getByRole('region', { name: 'SCIM provisioning (Okta, Entra ID)' });
    await card.waitFor();
    await card.getByText(`${server.deps.config.baseUrl}/scim/v2`).waitFor();
    await card.getByText('Off').waitFor();
    await card.getByRole('button', { name: 'Generate token' }).click();
    const shown = card.getByRole('status', { name: 'New SCIM token' });
    const token = ((await shown.locator('pre').textContent()) ?? '').trim();
    assert.match(token, /^scim_[A-Za-z0-9_-]{43}$/);
    await card.getByText(/^On since/).waitFor();
    await card.getByText('Steps for Okta').click();
    await card.getByText(/unique identifier to userName/).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'integrations-scim');

    // The identity provider at work: a user, a group, then the user deactivated.
    const send = (method: string, path: string, body: unknown) =>
      server.request(method, `/scim/v2${path}`, { token, rawBody: JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } });
    const user = await send('POST', '/Users', {
      schemas: [CORE],
      userName: 'grace@acme.example',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      active: true,
    });
    assert.equal(user.status, 201, user.text);
    await send('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Engineering', members: [{ value: user.body.id }] });
    await send('PATCH', `/Users/${user.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });

    await page.reload();
    await card.getByText('Last request').waitFor();
    assert.notEqual(((await card.locator('.stat').nth(1).locator('dd').textContent()) ?? '').trim(), 'never', 'the last request is shown');
    assert.ok(!(await page.content()).includes(token), 'the token is not shown again');

    await page.goto(`${server.url}/app/users`);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByLabel('Group').selectOption({ label: 'Engineering (1)' });
    const row = page.getByRole('row', { name: /Grace Hopper/ });
    await row.getByText('Suspended').waitFor();
    // The filtered list replaces the whole one when its answer arrives: wait for it, then count.
    await waitFor(async () => (await page.getByRole('row').count()) === 2, 'the list filtered to the group');
    assert.equal(await page.getByRole('row').count(), 2, 'the header and the group member');
    await page.getByLabel('Status').selectOption('suspended');
    await row.waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'users-suspended');
    await page.getByLabel('Status').selectOption('');
    await row.getByRole('button', { name: 'Restore Grace Hopper' }).click();
    await row.getByText('Invited').waitFor();
    const after = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.body.id}`, { key: org.key });
    assert.equal(after.body.status, 'invited');
    // The Integrations page reads the Google connection, whose 404 means "not connected": the browser logs it.
    assert.deepEqual(
      errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
    await context.close();
  });
});
