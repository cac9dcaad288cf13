// The Users page in a real browser, as an owner and as an admin: add a user, find them, edit them,
// the owner rules shown, remove with confirmation, and the CSV import with a bad row. axe-core on
// the page and its dialogs; no console errors.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer, type TestServer } from './helpers/server.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, launchBrowser, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';

const skip = browserUnavailable();
const FAST_JOBS = { JOBS_POLL_MS: '25', JOBS_RETRY_BASE_MS: '100', JOBS_RETRY_MAX_MS: '300' };
const INVITATION_LINK = /https?:\/\/\S+\/invitation\/[A-Za-z0-9_-]{43}/;

describe('the Users page', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp();
  });
  browserSuite({ env: () => ({ SMTP_URL: smtp.url, ...FAST_JOBS }), org: { starterTemplates: false }, template: {} }, (s) => ({ server, browser, org } = s));
  after(async () => {
    await smtp?.close();
  });

  const usersOf = async (o: TestOrg) =>
    (await server.request('GET', `/v1/orgs/${o.orgId}/users?limit=200`, { key: o.key })).body.items as {
      email: string;
      userId: string;
      role: string;
      title: string;
    }[];

  test('an owner adds a user, finds, edits and removes them', async () => {
    const owner = await userWithPassword(server, org, 'owner');
    await createUser(server, org, { name: 'Someone Else', email: 'someone.else@example.test' });
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, owner);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();

    await page.getByRole('button', { name: 'Add user' }).click();
    const add = page.getByRole('dialog', { name: 'Add a user' });
    await add.getByLabel('Email').fill('katherine.johnson@example.test');
    await add.getByLabel('Name').fill('Katherine Johnson');
    await add.getByLabel('Department').fill('Research');
    const roleOptions = await add.getByLabel('Role').locator('option').allInnerTexts();
    assert.deepEqual(roleOptions, ['Member', 'Admin', 'Owner'], 'an owner may give every role');
    await add.getByLabel('Role').selectOption('admin');
    assert.deepEqual(await seriousViolations(page), [], 'axe on the add dialog');
    await add.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('An invitation was sent to katherine.johnson@example.test.').waitFor();
    const created = (await usersOf(org)).find((u) => u.email === 'katherine.johnson@example.test');
    assert.ok(created, 'the user exists');
    assert.equal(created.role, 'admin');
    assert.match((await smtp.waitFor('katherine.johnson@example.test')).text, INVITATION_LINK);

    await page.getByLabel('Search').fill('katherine');
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: /^Katherine Johnson/ }) });
    await row.getByText('Invited').waitFor();
    await page.getByRole('cell', { name: /^Someone Else/ }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Resend invitation to Katherine Johnson' }).click();
    await page.getByText('A new invitation was sent to katherine.johnson@example.test.').waitFor();
    assert.match((await smtp.waitFor('katherine.johnson@example.test', 2)).text, INVITATION_LINK);

    await page.getByRole('button', { name: 'Edit Katherine Johnson' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Katherine Johnson' });
    await edit.getByLabel('Job title').fill('Flight Dynamics');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    assert.equal((await usersOf(org)).find((u) => u.userId === created.userId)?.title, 'Flight Dynamics');

    await page.getByRole('button', { name: 'Remove Katherine Johnson' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove Katherine Johnson?' });
    assert.deepEqual(await seriousViolations(page), [], 'axe on the confirmation');
    await confirm.getByRole('button', { name: 'Remove user' }).click();
    await page.getByText('Katherine Johnson was removed.').waitFor();
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${created.userId}`, { key: org.key })).status, 404);
    await page.getByLabel('Search').fill('');
    await page.getByRole('cell', { name: /^Someone Else/ }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'axe on the users page');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the column buttons sort the whole list, across pages, not the page shown', async () => {
    // An org of its own with more users than a page (25): the last name alphabetically is created
    // first, so it is on the first page in creation order and on no other page sorted by name.
    const sorted = await createOrg(server, { seats: 40 });
    await createUser(server, sorted, { name: 'Zoe Zeta', email: `zoe.${sorted.orgId.slice(0, 8)}@example.test` });
    for (let i = 0; i < 28; i++)
      await createUser(server, sorted, { name: `Member ${String(i).padStart(2, '0')}`, email: `m${i}.${sorted.orgId.slice(0, 8)}@example.test` });
    const owner = await userWithPassword(server, sorted, 'owner');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, owner);
    const firstName = () => page.locator('tbody tr').first().locator('td').first().innerText();
    await page.getByRole('cell', { name: /^Member 00/ }).waitFor();
    assert.doesNotMatch(await page.locator('tbody').innerText(), /Zoe Zeta/, 'sorted by name, Zoe is on the last page');
    await page.getByRole('button', { name: /^Name/ }).click();
    await page.getByRole('cell', { name: /^Zoe Zeta/ }).waitFor();
    assert.match(await firstName(), /^Zoe Zeta/);
    assert.equal(await page.getByRole('columnheader', { name: /^Name/ }).getAttribute('aria-sort'), 'descending');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an admin sees the owner rules: an owner’s role and email are locked, and no owner role to give', async () => {
    const admin = await userWithPassword(server, org, 'admin');
    const { page, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, admin);
    await page.getByLabel('Role', { exact: true }).first().waitFor();
    await page.getByRole('combobox', { name: 'Role' }).selectOption('owner');
    const ownerRow = page
      .getByRole('row')
      .filter({ hasText: 'owner' })
      .filter({ has: page.getByRole('button', { name: /^Edit / }) })
      .first();
    await ownerRow.waitFor();
    assert.equal(await ownerRow.getByRole('button', { name: /^Remove / }).isDisabled(), true, 'an admin may not remove an owner');
    await ownerRow.getByRole('button', { name: /^Edit / }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit / });
    assert.equal(await dialog.getByLabel('Role').isDisabled(), true);
    assert.equal(await dialog.getByLabel('Email').isDisabled(), true);
    await dialog.getByText('Only an owner may change an owner’s role.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Add user' }).click();
    const roles = await page.getByRole('dialog', { name: 'Add a user' }).getByLabel('Role').locator('option').allInnerTexts();
    assert.deepEqual(roles, ['Member', 'Admin']);
    await context.close();
  });

  test('CSV import: the template downloads, good rows are created, a bad row is refused with its reason', async () => {
    const owner = await userWithPassword(server, org, 'owner');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, owner);
    await page.getByRole('button', { name: 'Import from CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import users from a CSV file' });

    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download the template' }).click()]);
    assert.equal(download.suggestedFilename(), 'users-template.csv');
    const template = readFileSync((await download.path())!, 'utf8');
    assert.match(template, /^email,name,title,department,phone,mobile,role\r\n/);

    const csv = 'email,name,department\r\nlin.one@example.test,Lin One,Sales\r\nnot-an-email,Bad Row,Sales\r\nlin.two@example.test,Lin Two,Sales\r\n';
    await dialog.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.getByRole('heading', { name: '2 created, 0 updated, 1 refused' }).waitFor();
    const refused = dialog.getByRole('table', { name: 'Import results' }).getByRole('row').filter({ hasText: 'not-an-email' });
    assert.match(await refused.innerText(), /refused\s+email/i);
    assert.deepEqual(await seriousViolations(page), [], 'axe on the import results');
    await screenshot(page, 'users-import');
    const emails = (await usersOf(org)).map((u) => u.email);
    assert.ok(emails.includes('lin.one@example.test') && emails.includes('lin.two@example.test'));
    assert.ok(!emails.includes('not-an-email'));
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.getByRole('cell', { name: /^Lin Two/ }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});

describe('adding a user on a stage without a mail server', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the dialog hands over the invitation link', async () => {
    const org = await createOrg(server);
    const owner = await userWithPassword(server, org, 'owner');
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/users`, owner);
    await page.getByRole('button', { name: 'Add user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a user' });
    await dialog.getByLabel('Email').fill('no.mail@example.test');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await dialog.getByText('No mail server is configured').waitFor();
    const link = (await dialog.locator('code').innerText()).trim();
    assert.match(link, INVITATION_LINK);
    await dialog.getByRole('button', { name: 'Copy the link' }).click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), link);
    assert.deepEqual(await seriousViolations(page), [], 'axe on the invitation link');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('table').getByText('no.mail@example.test', { exact: true }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
