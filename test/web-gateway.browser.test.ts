// The "Server-side (all mail clients)" page in a real browser, as an org's admin: add a sender
// domain, publish its TXT record (a real DNS server on localhost), verify it; set up the gateway
// (the password shown once), send a test message that reaches the next hop stamped; axe on the page.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import type { TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { startDns, type TestDns } from './helpers/dns.ts';
import { startSink, type Sink } from './helpers/gateway.ts';
import { screenshot } from './helpers/screenshots.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();
// Before the gateway is set up, its GET answers 404 (the contract): the browser logs that one failed load.
const unexpected = (errors: string[]) => errors.filter((e) => !/status of 404/.test(e));

describe('the server-side page', { skip }, () => {
  let dns: TestDns;
  let sink: Sink;
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let admin: Person;
  before(async () => {
    dns = await startDns();
    sink = await startSink();
  });
  browserSuite(
    { env: () => ({ DNS_SERVERS: dns.server, GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true' }), org: { name: 'Contoso' }, template: {}, person: 'admin' },
    (s) => ({ server, browser, org, person: admin } = s),
  );
  after(async () => {
    await sink?.close();
    await dns?.close();
  });

  test('add and verify a domain, set up the gateway, send a test message', async () => {
    const domain = admin.email.split('@')[1]!;
    const { page, errors } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/server-side`, admin);
    await page.getByRole('heading', { level: 1, name: 'Server-side (all mail clients)' }).waitFor();
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByRole('button', { name: 'Add the domain' }).click();
    const table = page.getByRole('table', { name: 'Sender domains' });
    await table.getByText('Not verified').waitFor();
    const claimed = (await server.request('GET', `/v1/orgs/${org.orgId}/domains`, { key: org.key })).body.items[0];
    await table.getByText(claimed.verificationRecord.value).waitFor();
    dns.setTxt(claimed.verificationRecord.name, [claimed.verificationRecord.value]);
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    await table.getByText('Verified', { exact: true }).waitFor();

    await page.getByLabel('Next hop host').fill('127.0.0.1');
    await page.getByLabel('Next hop port').fill(String(sink.port));
    await page.getByLabel('Allowed networks').fill('40.92.0.0/15 shared');
    await page.getByRole('button', { name: 'Set up the gateway' }).click();
    await page.getByText("The gateway's password, shown this once:").waitFor();
    const settings = (await server.request('GET', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key })).body;
    assert.deepEqual(settings.allowedNetworks, [{ cidr: '40.92.0.0/15', shared: true }]);
    await page.getByText(settings.username).waitFor();
    await page.getByRole('heading', { name: 'Microsoft 365' }).waitFor();

    await page.getByLabel('Send a test message to').fill('grace@ext.example');
    await page.getByRole('button', { name: 'Send a test message' }).click();
    await page.getByRole('status').filter({ hasText: 'stamped' }).waitFor();
    const got = await sink.next(1);
    assert.match(got.raw.toString('latin1'), new RegExp(`X-Sigsvc-Stamped: ${org.orgId}; stamped`));
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'server-side');
    // At 390 px the page fits the screen: wide tables scroll inside their frame.
    await page.setViewportSize({ width: 390, height: 844 });
    await waitFor(async () => (await page.evaluate('document.documentElement.scrollWidth')) === 390, 'the Server-side page fits 390 px');
    await page.setViewportSize({ width: 1280, height: 860 });
    assert.deepEqual(unexpected(errors), []);
    await page.close();
  });
});
