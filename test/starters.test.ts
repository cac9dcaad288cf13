// A first signature that works (docs/api.md, "People getting in"): a new org's starter default template, the gallery of
// starters, a user reading their own rendered signature, and every rendering path gated past grace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { Browser, authorizeUrl, client, oidcClient, signIn, type OidcClient } from './helpers/browser.ts';
import { deliver, event } from './helpers/payments.ts';
import { compileTemplate, parseSaved, renderSignature } from '../src/render/compile.ts';
import { STARTERS, DEFAULT_STARTER } from '../src/templates/starters.ts';

const DAY = 86_400_000;

describe('starter templates', () => {
  test('each starter is already in the form saving it gives, passes the checks without warnings, and leaves out empty fields', async () => {
    assert.ok(STARTERS.length >= 3);
    assert.equal(new Set(STARTERS.map((s) => s.starterId)).size, STARTERS.length);
    for (const s of STARTERS) {
      const compiled = await compileTemplate({ html: s.html, text: s.text });
      assert.equal(compiled.htmlPrepared, s.html, `${s.starterId}: html_prepared = html`);
      assert.deepEqual(compiled.warnings, [], s.starterId);
      assert.match(s.html, /<table/, `${s.starterId}: a table layout`);
      assert.doesNotMatch(s.html, /<style|class=/, `${s.starterId}: inline styles only`);
      assert.match(s.html, /\{\{ pixel_url \}\}/, `${s.starterId}: the pixel`);
      const sparse = {
        user: { name: 'Bo', title: '', email: 'bo@example.test', phone: '', mobile: '', department: '', pronouns: '', website: '', address: '', photo_url: '', social: {}, attributes: {} },
        org: { name: 'Tiny', website: '', address: '', social: {}, logo_url: '' },
        campaign: { banner: '', text: '' },
        pixel_url: 'https://x.test/v1/p/1',
      };
      const out = await renderSignature(parseSaved({ htmlPrepared: s.html, text: s.text }), sparse, 30_720);
      assert.doesNotMatch(out.html, /Phone:|Mobile:| · |\n\s*\n/, `${s.starterId}: no empty rows or lines`);
      assert.doesNotMatch(out.text, /\n\n|Phone/, `${s.starterId}: no empty lines`);
      assert.match(out.html, /Bo/);
      assert.match(out.html, /Tiny/);
    }
  });
});

describe('a first signature that works', () => {
  let server: TestServer;
  let org: TestOrg;
  let app: OidcClient;
  let offsetMs = 0;
  before(async () => {
    server = await startServer({}, { clock: () => new Date(Date.now() + offsetMs) });
    org = await createOrg(server, { name: 'Fresh & Co' });
    const { authUrl, stage, appUrl } = server.deps.config;
    app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
  });
  after(() => server.close());

  test('a new org has the starter as its default template, and its first render works', async () => {
    const list = await server.request('GET', `/v1/orgs/${org.orgId}/templates`, { key: org.key });
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    const [starter] = list.body.items;
    assert.equal(starter.isDefault, true);
    assert.equal(starter.name, DEFAULT_STARTER.name);
    assert.equal(starter.html, DEFAULT_STARTER.html);
    const rendered = await server.request('POST', `/v1/orgs/${org.orgId}/render/${org.ownerUserId}`, { key: org.key });
    assert.equal(rendered.status, 200, rendered.text);
    assert.match(rendered.body.html, /Fresh &amp; Co/);
    assert.match(rendered.body.html, new RegExp(`/v1/p/${org.ownerUserId}`));
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=template.create`, { key: org.key });
    assert.equal(audit.body.items.length, 1);
  });

  test('the gallery lists the starters, page by page', async () => {
    const all = await server.request('GET', `/v1/orgs/${org.orgId}/templates/starters`, { key: org.key });
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.items.map((s: { starterId: string }) => s.starterId), STARTERS.map((s) => s.starterId));
    assert.equal(all.body.nextCursor, null);
    assert.deepEqual(Object.keys(all.body.items[0]).sort(), ['html', 'name', 'starterId', 'text']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=1&cursor=${cursor}` : '?limit=1';
      const pageRes = await server.request('GET', `/v1/orgs/${org.orgId}/templates/starters${q}`, { key: org.key });
      assert.equal(pageRes.body.items.length, 1);
      seen.push(pageRes.body.items[0].starterId);
      cursor = pageRes.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, STARTERS.map((s) => s.starterId));
    const bad = await server.request('GET', `/v1/orgs/${org.orgId}/templates/starters?cursor=nonsense`, { key: org.key });
    assert.equal(bad.status, 400);
    // One of them saved as a template of the org's own.
    const compact = STARTERS.find((s) => s.starterId === 'compact')!;
    const saved = await server.request('POST', `/v1/orgs/${org.orgId}/templates`, { key: org.key, body: { name: compact.name, html: compact.html, text: compact.text } });
    assert.equal(saved.status, 201, saved.text);
    assert.deepEqual(saved.body.warnings, []);
  });

  test('from "an admin added me" to "I am signed in and read my signature", with no password typed for me', async () => {
    const email = `first-${randomUUID().slice(0, 8)}@example.test`;
    const added = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email, name: 'Grace Hopper', title: 'Rear Admiral', phone: '+1 555 0100' } });
    assert.equal(added.status, 201);
    const browser = new Browser();
    await browser.follow(added.body.invitationUrl, app.redirectUri);
    await browser.submit(added.body.invitationUrl, { password: 'grace picked this', passwordConfirm: 'grace picked this' }, app.redirectUri);
    const { url, verifier } = await authorizeUrl(app);
    const step = await browser.follow(url, app.redirectUri);
    assert.ok(step.callback, 'signed in without typing the password again');
    const tokens = await client.authorizationCodeGrant(app.config, step.callback, { pkceCodeVerifier: verifier });
    const idToken = tokens.id_token as string;
    assert.equal(decodeJwt(idToken).sub, added.body.userId);

    const mine = await server.request('GET', `/v1/orgs/${org.orgId}/users/${added.body.userId}/signature`, { token: idToken });
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(Object.keys(mine.body).sort(), ['bytes', 'html', 'text', 'warnings']);
    assert.match(mine.body.html, /Grace Hopper/);
    assert.match(mine.body.html, /Rear Admiral/);
    assert.match(mine.body.html, /\+1 555 0100/);
    assert.match(mine.body.html, new RegExp(`/v1/p/${added.body.userId}`));
    assert.match(mine.body.text, /Grace Hopper\nRear Admiral\nFresh & Co\nPhone: \+1 555 0100\n/);
    assert.equal(mine.body.bytes, Buffer.byteLength(mine.body.html));

    // Not someone else's, as a member; an admin (and an API key) reads anyone's.
    const someoneElse = await server.request('GET', `/v1/orgs/${org.orgId}/users/${org.ownerUserId}/signature`, { token: idToken });
    assert.equal(someoneElse.status, 403);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${added.body.userId}/signature`, { key: org.key })).status, 200);
    const admin = await userWithPassword(server, org, 'admin');
    const adminToken = (await signIn(app, { username: admin.email, password: admin.password })).tokens.id_token as string;
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${added.body.userId}/signature`, { token: adminToken })).status, 200);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${randomUUID()}/signature`, { key: org.key })).status, 404);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/not-a-uuid/signature`, { key: org.key })).status, 400);
  });

  test('past the grace period every rendering path answers 402; reading templates still works', async () => {
    const late = await createOrg(server);
    await deliver(server, event('invoice.payment_failed', { customer: `cus_${late.orgId}`, metadata: { orgId: late.orgId } }));
    assert.equal((await server.request('GET', `/v1/orgs/${late.orgId}/users/${late.ownerUserId}/signature`, { key: late.key })).status, 200, 'within grace');
    offsetMs = 15 * DAY;
    try {
      const signature = await server.request('GET', `/v1/orgs/${late.orgId}/users/${late.ownerUserId}/signature`, { key: late.key });
      assert.equal(signature.status, 402);
      assert.equal(signature.body.error.details.blockedBy, 'grace_expired');
      assert.equal((await server.request('POST', `/v1/orgs/${late.orgId}/render/${late.ownerUserId}`, { key: late.key })).status, 402);
      const preview = await server.request('POST', `/v1/orgs/${late.orgId}/templates/preview`, { key: late.key, body: { userId: late.ownerUserId, html: '<p>{{ user.name }}</p>' } });
      assert.equal(preview.status, 402);
      assert.equal((await server.request('GET', `/v1/orgs/${late.orgId}/templates`, { key: late.key })).status, 200);
      assert.equal((await server.request('GET', `/v1/orgs/${late.orgId}/templates/starters`, { key: late.key })).status, 200);
    } finally {
      offsetMs = 0;
    }
  });
});
