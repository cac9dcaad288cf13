// The add-in's runtime, run as Outlook runs it, against a stand-in for Office.js
// (test/helpers/office-standin.ts) and the real service: in Chromium, loaded by the real
// commands.html (Outlook on the web, Mac, new Outlook), and alone in a bare node:vm context
// (classic Outlook on Windows: no DOM, no modules). Each scenario plays one event and checks what
// was inserted and that event.completed was called exactly once, failures included.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { launchBrowser, type SharedBrowser } from './helpers/chromium.ts';
import { markSignature } from '../src/render/module.ts';
import { installOfficeStandIn, type Played, type Scenario } from './helpers/office-standin.ts';

const OFFICE_JS = 'https://appsforoffice.microsoft.com/lib/1/hosted/office.js';
// Long enough that a busy machine answers the normal cases in time; the slow case holds its answer until released.
const TIMEOUT_MS = 4000;

describe('the Outlook add-in runtime', () => {
  let server: TestServer;
  let browser: SharedBrowser;
  let org: TestOrg;
  let addinKey: string;
  const people: Record<string, { userId: string; email: string; html: string }> = {};

  before(async () => {
    server = await startServer({ ADDIN_FETCH_TIMEOUT_MS: String(TIMEOUT_MS) });
    org = await createOrg(server);
    await createTemplate(server, org, { html: '<p>{{ user.name }} <{{ user.email }}></p>', text: '{{ user.name }}' });
    for (const [name, displayName] of [
      ['alice', 'Alice Arden'],
      ['shared', 'Sales Team'],
    ] as const) {
      const user = await createUser(server, org, { name: displayName });
      const rendered = await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key });
      // The add-in's answer carries the marker by which the SMTP gateway knows a signature is there.
      people[name] = { ...user, html: markSignature(rendered.body.html, user.userId) };
    }
    addinKey = (await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key })).body.addinKey;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page that loaded commands.html with the stand-in Office.js; `requests` collects the signature calls. */
  async function outlookPage(key: string = addinKey): Promise<{ page: Page; requests: URL[] }> {
    const page = await browser.newPage();
    const requests: URL[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/addin/signature')) requests.push(new URL(r.url()));
    });
    await page.route(OFFICE_JS, (route) => route.fulfill({ contentType: 'text/javascript', body: `(${installOfficeStandIn.toString()})(window);` }));
    const res = await page.goto(`${server.url}/addin/commands.html${key ? `?key=${key}` : ''}`);
    assert.equal(res?.status(), 200);
    return { page, requests };
  }

  const play = (page: Page, s: Scenario) => page.evaluate((scenario) => (globalThis as any).__play(scenario), s) as Promise<Played>;

  function assertInserted(played: Played, html: string) {
    assert.equal(played.completed, 1, 'completed exactly once');
    assert.deepEqual(played.signatures, [{ html, coercionType: 'html' }]);
    assert.equal(played.signaturesAtCompletion, 1, 'completed after the signature was set');
  }

  function assertNothingInserted(played: Played) {
    assert.equal(played.completed, 1, 'completed exactly once');
    assert.deepEqual(played.signatures, []);
  }

  test("new mail, reply and forward: the sender's signature lands, the client's own is turned off, the service hears the compose type", async () => {
    const { page, requests } = await outlookPage();
    for (const [composeType, compose] of [
      ['newMail', 'new'],
      ['reply', 'reply'],
      ['forward', 'forward'],
    ]) {
      const played = await play(page, { handler: 'onNewMessageComposeHandler', composeType, from: people.alice!.email });
      assertInserted(played, people.alice!.html);
      assert.equal(played.disabled, 1, 'disableClientSignatureAsync called');
      const asked = requests.at(-1)!;
      assert.equal(asked.searchParams.get('compose'), compose);
      assert.equal(asked.searchParams.get('email'), people.alice!.email);
    }
    await page.close();
  });

  test("a meeting: the organizer's signature lands (no client signature to turn off)", async () => {
    const { page } = await outlookPage();
    const played = await play(page, { handler: 'onNewAppointmentOrganizerHandler', itemType: 'appointment', from: people.shared!.email });
    assertInserted(played, people.shared!.html);
    assert.equal(played.disabled, 0);
    await page.close();
  });

  test("changing From swaps the signature to the new sender's; to an unknown address, it removes the old one", async () => {
    const { page } = await outlookPage();
    assertInserted(await play(page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email }), people.alice!.html);
    assertInserted(await play(page, { handler: 'onMessageFromChangedHandler', from: people.shared!.email }), people.shared!.html);
    const unknown = await play(page, { handler: 'onMessageFromChangedHandler', from: 'someone-else@example.test' });
    assert.equal(unknown.completed, 1);
    assert.deepEqual(unknown.signatures, [{ html: '', coercionType: 'html' }]);
    await page.close();
  });

  test('an unknown sender on a new message: nothing inserted, completed', async () => {
    const { page } = await outlookPage();
    assertNothingInserted(await play(page, { handler: 'onNewMessageComposeHandler', from: 'nobody@example.test' }));
    await page.close();
  });

  test('the compose button inserts the signature again', async () => {
    const { page } = await outlookPage();
    assertInserted(await play(page, { handler: 'insertSignature', from: people.alice!.email }), people.alice!.html);
    await page.close();
  });

  test('an older client (no compose type, no way to turn off its signature) still gets the signature', async () => {
    const { page, requests } = await outlookPage();
    const played = await play(page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email, oldClient: true });
    assertInserted(played, people.alice!.html);
    assert.equal(requests.at(-1)!.searchParams.get('compose'), 'new');
    await page.close();
  });

  test('a failing service (500), a network failure, a missing key: nothing inserted, completed', async () => {
    const failing = await outlookPage();
    await failing.page.route(`${server.url}/v1/addin/signature**`, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":{"code":"INTERNAL_ERROR","message":"boom"}}' }),
    );
    assertNothingInserted(await play(failing.page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email }));
    await failing.page.unroute(`${server.url}/v1/addin/signature**`);
    await failing.page.route(`${server.url}/v1/addin/signature**`, (route) => route.abort('connectionrefused'));
    assertNothingInserted(await play(failing.page, { handler: 'onNewAppointmentOrganizerHandler', itemType: 'appointment', from: people.alice!.email }));
    await failing.page.close();

    const keyless = await outlookPage('');
    assertNothingInserted(await play(keyless.page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email }));
    await keyless.page.close();
  });

  test('a slow service: completed after the wait limit with nothing inserted, and the late answer inserts nothing', async () => {
    const { page } = await outlookPage();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(`${server.url}/v1/addin/signature**`, async (route) => {
      await held;
      await route.continue().catch(() => {});
    });
    const played = await play(page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email });
    assertNothingInserted(played);
    release();
    // Let the held answer arrive, then look at the same record again.
    await new Promise((r) => setTimeout(r, 500));
    const later = (await page.evaluate(() => (globalThis as any).__lastPlayed)) as Played;
    assert.deepEqual(later.signatures, [], 'an answer after completion changes nothing');
    assert.equal(later.completed, 1);
    await page.close();
  });

  test('the client API throwing (reading From, setting the signature): completed anyway', async () => {
    const { page } = await outlookPage();
    assert.equal((await play(page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email, throwIn: 'from' })).completed, 1);
    assert.equal((await play(page, { handler: 'onNewMessageComposeHandler', from: people.alice!.email, throwIn: 'setSignature' })).completed, 1);
    await page.close();
  });

  test("a signature over Outlook's limit: nothing inserted, the user told why, completed", async () => {
    const big = await createOrg(server);
    await createTemplate(server, big, { html: `<p>{{ user.name }}${'x'.repeat(30_100)}</p>`, text: 'x', isDefault: true });
    const person = await createUser(server, big);
    const key = (await server.request('POST', `/v1/orgs/${big.orgId}/integrations/outlook/rotate-key`, { key: big.key })).body.addinKey;
    const { page } = await outlookPage(key);
    const played = await play(page, { handler: 'onNewMessageComposeHandler', from: person.email });
    assertNothingInserted(played);
    assert.equal(played.notifications.length, 1);
    assert.match(played.notifications[0]!, /not inserted.*30000/);
    await page.close();
  });

  test('classic Outlook on Windows: the runtime file alone, in a bare JavaScript context, does the same', async () => {
    const source = (await server.request('GET', `/addin/runtime.js?key=${addinKey}`)).text;
    // Only what a JavaScript engine and Outlook give: no window, no document, no module loader.
    const context = vm.createContext({ setTimeout, clearTimeout, fetch, encodeURIComponent, JSON });
    installOfficeStandIn(context);
    vm.runInContext(source, context, { filename: 'runtime.js' });
    assert.deepEqual(Object.keys(context.__officeHandlers).sort(), [
      'insertSignature',
      'onMessageFromChangedHandler',
      'onNewAppointmentOrganizerHandler',
      'onNewMessageComposeHandler',
    ]);
    const played = (await context.__play({ handler: 'onNewMessageComposeHandler', composeType: 'reply', from: people.shared!.email })) as Played;
    assertInserted(played, people.shared!.html);
    const unknown = (await context.__play({ handler: 'onNewMessageComposeHandler', from: 'nobody@example.test' })) as Played;
    assertNothingInserted(unknown);
  });
});
