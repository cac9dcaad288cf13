// The Webhooks page in a real browser, as an org's admin, against a real receiver on localhost:
// add an endpoint (its secret shown once), send a test event and see it in the delivery log,
// verify it with that secret, redeliver it (the same webhook-id), rotate the secret, disable the
// endpoint; axe on the page.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import type { TestServer } from './helpers/server.ts';
import type { TestOrg } from './helpers/fixtures.ts';
import { browserUnavailable, openPage, seriousViolations, signInThroughApp, type SharedBrowser } from './helpers/chromium.ts';
import { browserSuite, type Person } from './helpers/browser-suite.ts';
import { screenshot } from './helpers/screenshots.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const skip = browserUnavailable();

describe('the Webhooks page', { skip }, () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let receiver: Receiver;
  let admin: Person;
  before(async () => {
    receiver = await startReceiver();
  });
  browserSuite(
    { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, org: { name: 'Acme Rockets', starterTemplates: false }, person: 'admin' },
    (s) => ({ server, browser, org, person: admin } = s),
  );
  after(async () => {
    await receiver?.close();
  });

  test('add an endpoint, send a test event, redeliver it, rotate the secret, disable it', async () => {
    const { page, errors, context } = await openPage(browser);
    await signInThroughApp(page, `${server.url}/app/webhooks`, admin);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const add = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await add.getByLabel('URL').fill(receiver.url);
    await add.getByLabel('Description (optional)').fill('CRM');
    await add.getByRole('checkbox', { name: /user\.created/ }).check();
    assert.deepEqual(await seriousViolations(page), [], 'the add dialog');
    await add.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('dialog', { name: 'Your endpoint’s signing secret' });
    await shown.getByText('it is shown only once').waitFor();
    const secret = await shown.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    await shown.getByRole('button', { name: 'I have stored the secret' }).click();

    const row = page.getByRole('row').filter({ hasText: receiver.url });
    await row.getByText('Active').waitFor();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');
    const listed = (await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key })).body.items;
    assert.deepEqual(
      listed.map((e: { events: string[] }) => e.events),
      [['signature.rendered', 'user.created']],
    );

    // A test event: delivered, verified with the secret the page showed, and in the log.
    await row.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
    await page.getByText('Test event queued').waitFor();
    const [test] = await waitFor(() => receiver.received.length >= 1 && receiver.received, 'the test event');
    assert.equal((new Webhook(secret).verify(test!.body, test!.headers as Record<string, string>) as { type: string }).type, 'webhook.test');
    const log = page.getByRole('table', { name: 'Deliveries' });
    await waitFor(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await log.getByText('succeeded').count()) > 0;
    }, 'the delivery shown as succeeded');
    await log.getByText('HTTP 200', { exact: false }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'webhooks');

    // Redelivered: the same webhook-id again.
    await log.getByRole('button', { name: /Redeliver webhook\.test/ }).click();
    await page.getByText('Delivery of webhook.test queued again.').waitFor();
    await waitFor(() => receiver.received.length >= 2, 'the redelivery');
    assert.equal(receiver.received[1]!.headers['webhook-id'], test!.headers['webhook-id']);

    // Rotation: a new secret, shown once; the old one still verifies for 24 hours.
    await row.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    await page.getByRole('dialog', { name: 'Rotate this secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'The new signing secret' });
    const fresh = await rotated.getByLabel('Signing secret').inputValue();
    assert.notEqual(fresh, secret);
    await rotated.getByRole('button', { name: 'I have stored the secret' }).click();
    await row.getByText('Old secret signs until', { exact: false }).waitFor();

    await row.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await row.getByText('Disabled by an admin.').waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
