// The Outlook add-in's server side: the key an admin sees and rotates, the manifest (checked as
// XML against the structure Outlook requires), the add-in's files, and the signature route with its
// security cases (no key, a malformed, unknown or rotated key, another org's key or user).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';
import { startServer, type TestServer } from './helpers/server.ts';
import { manualClock } from './helpers/clock.ts';
// Orgs without the starter template: these tests' own template is the default.
import { createOrgWithoutTemplates as createOrg, createTemplate, createUser, lapseOrg, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';

const KEY = /^oak_[A-Za-z0-9_-]{43}$/;

async function readOutlook(server: TestServer, org: TestOrg) {
  const res = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/outlook`, { key: org.key });
  assert.equal(res.status, 200, res.text);
  return res.body as { addinKey: string | null; manifestUrl: string; lastFetchAt: string | null };
}

/** The integration with its key: a manifest download (an explicit admin action) makes the first one. */
async function outlookOf(server: TestServer, org: TestOrg) {
  const read = await readOutlook(server, org);
  if (read.addinKey !== null) return read as typeof read & { addinKey: string };
  const manifest = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/outlook/manifest.xml`, { key: org.key });
  assert.equal(manifest.status, 200, manifest.text);
  const made = await readOutlook(server, org);
  assert.ok(made.addinKey);
  return made as typeof made & { addinKey: string };
}

const signature = (server: TestServer, addinKey: string | undefined, email: string, compose = 'new') =>
  server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(email)}&compose=${compose}`, {
    headers: addinKey === undefined ? {} : { 'x-addin-key': addinKey },
  });

/** Waits (polling, helpers/wait.ts) until `check` holds; the fetch recorder writes off the request path. */
async function eventually(check: () => Promise<boolean>, what: string) {
  await waitFor(check, what);
}

describe('Outlook add-in: key, manifest, files', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { name: 'Contoso & Partners <EU>' });
  });
  after(() => server.close());

  test('a GET makes nothing (no key, no audit entry); the first manifest download makes the key, once', async () => {
    const auditOf = async () =>
      (await server.request('GET', `/v1/orgs/${org.orgId}/audit`, { key: org.key })).body.items.filter(
        (e: { action: string }) => e.action === 'outlook.key.create',
      ).length;
    const untouched = await readOutlook(server, org);
    assert.equal(untouched.addinKey, null);
    assert.equal(untouched.manifestUrl, `${server.url}/v1/orgs/${org.orgId}/integrations/outlook/manifest.xml`);
    assert.equal(await auditOf(), 0);
    assert.equal(await server.deps.database.db.selectFrom('outlook_addins').select('org_id').where('org_id', '=', org.orgId).executeTakeFirst(), undefined);
    const first = await outlookOf(server, org);
    assert.match(first.addinKey, KEY);
    assert.equal(first.manifestUrl, `${server.url}/v1/orgs/${org.orgId}/integrations/outlook/manifest.xml`);
    assert.equal(first.lastFetchAt, null);
    const second = await outlookOf(server, org);
    assert.equal(second.addinKey, first.addinKey);
    assert.equal(await auditOf(), 1);
    // Stored sealed and hashed, never as sent.
    const row = await server.deps.database.db.selectFrom('outlook_addins').selectAll().where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    assert.ok(!row.key_sealed.includes(first.addinKey) && !row.key_hash.includes(first.addinKey));
  });

  test('the manifest: ids, versions, requirement sets, the runtime and its launch events, every URL under BASE_URL with the key', async () => {
    const { addinKey } = await outlookOf(server, org);
    const res = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/outlook/manifest.xml`, { key: org.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename=".+\.xml"/);
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (name) => ['LaunchEvent', 'bt:Url', 'bt:Image', 'Runtime', 'ExtensionPoint', 'Set', 'bt:Set', 'AppDomain'].includes(name),
    });
    const doc = parser.parse(res.text);
    const app = doc.OfficeApp;
    assert.equal(app['@xsi:type'], 'MailApp');
    assert.equal(app['@xmlns'], 'http://schemas.microsoft.com/office/appforoffice/1.1');
    assert.equal(app.Id, org.orgId);
    assert.match(app.Version, /^1\.0\.1\.0$/);
    assert.equal(app.DisplayName['@DefaultValue'], 'Email signatures – Contoso & Partners <EU>', 'the org name, escaped in the XML and read back whole');
    assert.equal(app.Hosts.Host['@Name'], 'Mailbox');
    assert.equal(app.Permissions, 'ReadWriteItem');
    assert.deepEqual(app.AppDomains.AppDomain, [new URL(server.url).origin]);

    const v11 = app.VersionOverrides.VersionOverrides;
    assert.equal(app.VersionOverrides['@xsi:type'], 'VersionOverridesV1_0');
    assert.equal(v11['@xsi:type'], 'VersionOverridesV1_1');
    assert.equal(v11.Requirements['bt:Sets']['@DefaultMinVersion'], '1.10');
    assert.equal(v11.Requirements['bt:Sets']['bt:Set'][0]['@Name'], 'Mailbox');
    const host = v11.Hosts.Host;
    assert.equal(host['@xsi:type'], 'MailHost');
    const urls = Object.fromEntries(v11.Resources['bt:Urls']['bt:Url'].map((u: Record<string, string>) => [u['@id'], u['@DefaultValue']]));
    const runtime = host.Runtimes.Runtime[0];
    assert.equal(runtime.Override['@type'], 'javascript');
    assert.equal(urls[runtime['@resid']], `${server.url}/addin/commands.html?key=${addinKey}`);
    assert.equal(urls[runtime.Override['@resid']], `${server.url}/addin/runtime.js?key=${addinKey}`);
    const launch = host.DesktopFormFactor.ExtensionPoint.find((e: Record<string, string>) => e['@xsi:type'] === 'LaunchEvent');
    assert.equal(launch.SourceLocation['@resid'], runtime['@resid'], 'the launch events run in the declared runtime');
    const events = Object.fromEntries(launch.LaunchEvents.LaunchEvent.map((e: Record<string, string>) => [e['@Type'], e['@FunctionName']]));
    assert.deepEqual(events, {
      OnNewMessageCompose: 'onNewMessageComposeHandler',
      OnNewAppointmentOrganizer: 'onNewAppointmentOrganizerHandler',
      OnMessageFromChanged: 'onMessageFromChangedHandler',
    });
    // The runtime file names exactly these functions (and the compose button's) to Office.
    const js = await server.request('GET', `/addin/runtime.js?key=${addinKey}`);
    for (const fn of [...Object.values(events), 'insertSignature']) assert.match(js.text, new RegExp(`Office\\.actions\\.associate\\('${fn}', ${fn}\\)`));

    // Every URL of the manifest is absolute under BASE_URL, and each one answers.
    const every = [...res.text.matchAll(/(?:DefaultValue="|<AppDomain>)(https?:\/\/[^"<]+)/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    assert.ok(every.length >= 8, `found ${every.length} URLs`);
    for (const u of every) {
      assert.ok(u.startsWith(server.url), `${u} is under BASE_URL`);
      // The origin (AppDomain) and the support link (the dashboard, served by the web apps) are not the add-in's files.
      if (u === new URL(server.url).origin || u === server.deps.config.appUrl) continue;
      const got = await fetch(u);
      assert.equal(got.status, 200, u);
    }
  });

  test("the runtime carries the key, the service's URL and the wait limit; the page loads Office.js and that runtime", async () => {
    const { addinKey } = await outlookOf(server, org);
    const js = await server.request('GET', `/addin/runtime.js?key=${addinKey}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.ok(js.text.includes(JSON.stringify({ baseUrl: server.url, addinKey, timeoutMs: 5000 })));
    assert.doesNotMatch(js.text, /^\s*(import|export)\s/m, 'no module syntax: classic Outlook runs it in a bare engine');
    const page = await server.request('GET', `/addin/commands.html?key=${addinKey}`);
    assert.equal(page.status, 200);
    assert.ok(page.text.includes('<script src="https://appsforoffice.microsoft.com/lib/1/hosted/office.js"></script>'));
    assert.ok(page.text.includes(`<script src="${server.url}/addin/runtime.js?key=${addinKey}"></script>`));
    assert.doesNotMatch(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, 'Outlook frames this page');
    const bad = await server.request('GET', '/addin/runtime.js?key=%22%3B%20alert(1)%2F%2F');
    assert.equal(bad.status, 400, 'a key that is not a key is never written into the script');
    const allowed = await server.request('GET', '/.well-known/microsoft-officeaddins-allowed.json');
    assert.deepEqual(allowed.body, { allowed: [`${server.url}/addin/runtime.js`] });
    for (const size of [16, 32, 64, 80, 128]) {
      const icon = await fetch(`${server.url}/addin/icon-${size}.png`);
      assert.equal(icon.headers.get('content-type'), 'image/png');
      const png = Buffer.from(await icon.arrayBuffer());
      assert.equal(png.readUInt32BE(16), size, `icon-${size}.png is ${size} px wide`);
    }
  });

  test('rotating the key: a new key and manifest version, the old key refused at once, audited', async () => {
    const other = await createOrg(server);
    await createTemplate(server, other);
    const user = await createUser(server, other);
    const before = await outlookOf(server, other);
    assert.equal((await signature(server, before.addinKey, user.email)).status, 200);
    const res = await server.request('POST', `/v1/orgs/${other.orgId}/integrations/outlook/rotate-key`, { key: other.key });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.addinKey, KEY);
    assert.notEqual(res.body.addinKey, before.addinKey);
    const old = await signature(server, before.addinKey, user.email);
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, 'UNAUTHORIZED');
    assert.equal((await signature(server, res.body.addinKey, user.email)).status, 200);
    const manifest = await server.request('GET', `/v1/orgs/${other.orgId}/integrations/outlook/manifest.xml`, { key: other.key });
    assert.match(manifest.text, /<Version>1\.0\.2\.0<\/Version>/);
    assert.ok(manifest.text.includes(`key=${res.body.addinKey}`) && !manifest.text.includes(before.addinKey));
    const audit = await server.request('GET', `/v1/orgs/${other.orgId}/audit`, { key: other.key });
    assert.ok(audit.body.items.some((e: { action: string; targetId: string }) => e.action === 'outlook.key.rotate' && e.targetId === other.orgId));
  });
});

describe('GET /v1/addin/signature', () => {
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  let addinKey: string;
  let otherKey: string;
  let user: { userId: string; email: string };
  let foreigner: { userId: string; email: string };
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
    other = await createOrg(server);
    await createTemplate(server, org, { html: '<p>{{ user.name }} · {{ user.title }}</p>', text: '{{ user.name }}' });
    await createTemplate(server, other);
    user = await createUser(server, org, { name: 'Grace Hopper', title: 'Rear Admiral' });
    foreigner = await createUser(server, other);
    addinKey = (await outlookOf(server, org)).addinKey;
    otherKey = (await outlookOf(server, other)).addinKey;
  });
  after(() => server.close());

  test("answers the sender's rendered signature (the render route's), by address in any case, for each compose type", async () => {
    const rendered = await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key });
    for (const compose of ['new', 'reply', 'forward']) {
      const res = await signature(server, addinKey, user.email.toUpperCase(), compose);
      assert.equal(res.status, 200, res.text);
      // The rendered signature, marked for the SMTP gateway (src/render/marker.ts).
      assert.deepEqual(res.body, { html: `<div class="sigsvc-signature sigsvc-${user.userId}">${rendered.body.html}</div>`, text: rendered.body.text });
      assert.match(res.body.html, /Grace Hopper · Rear Admiral/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
    const preflight = await fetch(`${server.url}/v1/addin/signature`, {
      method: 'OPTIONS',
      headers: { origin: 'https://outlook.office.com', 'access-control-request-headers': 'x-addin-key' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Addin-Key/i);
  });

  test("records each user's outlook deployment (deployed when fetched) and the org's last fetch", async () => {
    assert.equal((await signature(server, addinKey, user.email, 'reply')).status, 200);
    await eventually(async () => (await outlookOf(server, org)).lastFetchAt !== null, 'lastFetchAt set');
    const rows = await server.request('GET', `/v1/orgs/${org.orgId}/deployments?target=outlook&userId=${user.userId}`, { key: org.key });
    assert.equal(rows.status, 200, rows.text);
    assert.equal(rows.body.items.length, 1);
    assert.equal(rows.body.items[0].state, 'deployed');
    assert.ok(rows.body.items[0].deployedAt);
    assert.ok(Date.parse(rows.body.items[0].deployedAt) <= Date.parse((await outlookOf(server, org)).lastFetchAt!));
  });

  test('no key, a malformed, unknown or bearer-only credential: 401, nothing answered', async () => {
    const cases: [string, Record<string, string>][] = [
      ['no key', {}],
      ['malformed', { 'x-addin-key': 'oak_short' }],
      ['unknown', { 'x-addin-key': `oak_${'A'.repeat(43)}` }],
      ["the org's API key instead", { 'x-addin-key': org.key }],
      ['an API key as bearer', { authorization: `Bearer ${org.key}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(user.email)}`, { headers });
      assert.equal(res.status, 401, `${name}: ${res.status} ${res.text}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.ok(!res.text.includes('Grace'));
    }
  });

  test("another org's key for this org's user, this org's key for another org's user, an unknown or deleted sender: the same 404", async () => {
    const answers = [
      await signature(server, otherKey, user.email),
      await signature(server, addinKey, foreigner.email),
      await signature(server, addinKey, 'nobody@example.test'),
    ];
    const deleted = await createUser(server, org);
    assert.equal((await signature(server, addinKey, deleted.email)).status, 200);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${deleted.userId}`, { key: org.key })).status, 204);
    answers.push(await signature(server, addinKey, deleted.email));
    for (const res of answers) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.equal(res.body.error.message, 'Sender not found.');
    }
  });

  test('bad input: 400 after the key, never before it', async () => {
    for (const query of ['', '?email=', `?email=${encodeURIComponent(user.email)}&compose=draft`, `?email=${'a'.repeat(400)}`]) {
      const res = await server.request('GET', `/v1/addin/signature${query}`, { headers: { 'x-addin-key': addinKey } });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST', query);
      assert.match(res.body.error.details?.field ?? '', /^query\./, `${query}: the field is named`);
      const anon = await server.request('GET', `/v1/addin/signature${query}`);
      assert.equal(anon.status, 401, 'without a key the answer says nothing of the input');
    }
  });

  test("a signature over Outlook's 30,000 characters is refused with the reason", async () => {
    const big = await createOrg(server);
    await createTemplate(server, big, { html: `<p>{{ user.name }}${'x'.repeat(30_100)}</p>`, text: 'x', isDefault: true });
    const person = await createUser(server, big);
    const key = (await outlookOf(server, big)).addinKey;
    const res = await signature(server, key, person.email);
    assert.equal(res.status, 413, res.text);
    assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(res.body.error.details.reason, 'too_long');
    assert.equal(res.body.error.details.limit, 30_000);
    assert.ok(res.body.error.details.chars > 30_000);
    assert.match(res.body.error.message, /Outlook accepts at most 30000/);
    await eventually(async () => {
      const rows = await server.request('GET', `/v1/orgs/${big.orgId}/deployments?target=outlook`, { key: big.key });
      return rows.body.items.some(
        (d: { userId: string; state: string; reason: string }) => d.userId === person.userId && d.state === 'skipped' && d.reason === 'too_long',
      );
    }, 'the user skipped as too_long');
  });

  test('past the grace period: 402, like every render', async () => {
    const lapsed = await createOrg(server);
    await createTemplate(server, lapsed);
    const person = await createUser(server, lapsed);
    const key = (await outlookOf(server, lapsed)).addinKey;
    assert.equal((await signature(server, key, person.email)).status, 200);
    await lapseOrg(server, lapsed.orgId);
    const res = await signature(server, key, person.email);
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.error.code, 'PAYMENT_REQUIRED');
    await eventually(async () => {
      const rows = await server.request('GET', `/v1/orgs/${lapsed.orgId}/deployments?target=outlook`, { key: lapsed.key });
      return rows.body.items.some(
        (d: { userId: string; state: string; reason: string }) => d.userId === person.userId && d.state === 'skipped' && d.reason === 'payment_required',
      );
    }, 'the user skipped as payment_required');
  });
});

describe('the add-in route has its own throttle bucket, and needs SECRETS_KEY for its key', () => {
  test('past ADDIN_RATE_LIMIT_BURST the add-in gets 429 while the API goes on; and the API goes on draining its own', async () => {
    const server = await startServer({ ADDIN_RATE_LIMIT_RPS: '1', ADDIN_RATE_LIMIT_BURST: '3' });
    try {
      const org = await createOrg(server);
      await createTemplate(server, org);
      const user = await createUser(server, org);
      const { addinKey } = await outlookOf(server, org);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await signature(server, addinKey, user.email)).status);
      assert.ok(statuses.includes(429), `statuses ${statuses}`);
      const limited = await signature(server, addinKey, user.email);
      assert.equal(limited.status, 429);
      assert.ok(limited.headers.get('retry-after'));
      assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200, 'the stage bucket is another');
      assert.equal(limited.body.error.details.scope, 'addin');
    } finally {
      await server.close();
    }
  });

  test("anonymous requests take only their address's bucket: they cannot drain an org's add-in bucket, nor another org's", async () => {
    // One org's bucket of 3, the address's bucket of 4: without per-org buckets (one shared
    // add-in bucket), the anonymous requests below would leave the orgs nothing.
    const clock = manualClock();
    const server = await startServer(
      { ADDIN_RATE_LIMIT_RPS: '1', ADDIN_RATE_LIMIT_BURST: '3', PUBLIC_RATE_LIMIT_RPS: '1', PUBLIC_RATE_LIMIT_BURST: '4' },
      { clock: clock.now },
    );
    try {
      const [a, b] = [await createOrg(server), await createOrg(server)];
      const users = [];
      for (const org of [a, b]) {
        await createTemplate(server, org);
        users.push({ org, user: await createUser(server, org), key: (await outlookOf(server, org)).addinKey });
      }
      const anonymous: number[] = [];
      for (let i = 0; i < 10; i++)
        anonymous.push((await signature(server, i % 2 ? 'wrong' : `${users[0]!.key.slice(0, -4)}AAAA`, users[0]!.user.email)).status);
      assert.deepEqual(anonymous, [401, 401, 401, 401, 429, 429, 429, 429, 429, 429], 'the address has 4 tokens');
      const refused = await signature(server, undefined, users[0]!.user.email);
      assert.equal(refused.body.error.details.scope, 'address');
      // The same address with valid keys: each org's own bucket of 3, untouched by the 11 above.
      for (const { key, user } of users) {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await signature(server, key, user.email)).status);
        assert.deepEqual(statuses, [200, 200, 200, 429]);
      }
    } finally {
      await server.close();
    }
  });

  test("with the dashboard on another origin (the API's CORS for it on), the add-in route still answers any origin", async () => {
    const server = await startServer({ APP_URL: 'https://dashboard.example.test/app' });
    try {
      const org = await createOrg(server);
      await createTemplate(server, org);
      const user = await createUser(server, org);
      const { addinKey } = await outlookOf(server, org);
      const origin = 'https://outlook.office.com';
      const preflight = await fetch(`${server.url}/v1/addin/signature?email=x`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-addin-key' },
      });
      assert.ok(preflight.status < 300, `preflight ${preflight.status}`);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /x-addin-key/i);
      const res = await signature(server, addinKey, user.email);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      // The API's own routes still allow the dashboard's origin only.
      const api = await fetch(`${server.url}/v1/orgs/${org.orgId}`, { headers: { origin, 'x-api-key': org.key } });
      assert.notEqual(api.headers.get('access-control-allow-origin'), '*');
      assert.notEqual(api.headers.get('access-control-allow-origin'), origin);
    } finally {
      await server.close();
    }
  });

  test('without SECRETS_KEY making the key answers 503 saying how to make one', async () => {
    const server = await startServer({ SECRETS_KEY: '' });
    try {
      const org = await createOrg(server);
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key });
      assert.equal(res.status, 503);
      assert.match(res.body.error.message, /SECRETS_KEY.*openssl rand -base64 32/);
    } finally {
      await server.close();
    }
  });
});
