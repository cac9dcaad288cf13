import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, uploadPng } from './helpers/fixtures.ts';
import type { TestOrg } from './helpers/fixtures.ts';
import { MAX_TOKEN_CHARS } from '../src/clicks/token.ts';

// The click route and the campaigns' inputs at their edges (a hostile review, 2026-11-26): links
// outside ASCII, a MAC spelled otherwise, tokens the route's pattern did not know, a mark written
// into a person's own text, year 0, a campaign not started yet, and UTM parameters past a link's limit.
describe('clicks and campaigns at their edges', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const follow = (url: string, method = 'GET') =>
    fetch(url, { method, redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0' } });
  const startsAt = () => new Date(Date.now() - 60_000).toISOString();

  async function campaignOrg() {
    const org = await createOrg(server);
    await createTemplate(server, org, { name: 'Banner', html: '<p>{{ user.name }}</p>{{ campaign.banner | raw }}', isDefault: true });
    const user = await createUser(server, org);
    const imageId = await uploadPng(server, org, 600, 100);
    return { org, user, imageId };
  }
  const create = (org: TestOrg, body: Record<string, unknown>) => server.request('POST', `/v1/orgs/${org.orgId}/campaigns`, { key: org.key, body });
  const clicks = async (orgId: string) => {
    await server.deps.clicks.flush();
    return server.deps.database.db.selectFrom('clicks').select('destination').where('org_id', '=', orgId).execute();
  };
  const linkIn = (html: string) => /href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';

  test('a destination outside ASCII is redirected to percent-encoded (it was a 500), and its click recorded once', async () => {
    const { org, user, imageId } = await campaignOrg();
    const link = 'https://shop.example/prix-€?q=café&x=😀';
    const made = await create(org, { name: 'Euro', startsAt: startsAt(), audience: {}, variants: [{ imageId, link, alt: 'Prix', weight: 1 }] });
    assert.equal(made.status, 201, made.text);
    const sig = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}/signature`, { key: org.key });
    const href = linkIn(sig.body.html);
    assert.ok(href.startsWith(`${server.url}/v1/c/`), sig.body.html);
    const expected = 'https://shop.example/prix-%E2%82%AC?q=caf%C3%A9&x=%F0%9F%98%80';
    for (const method of ['HEAD', 'GET']) {
      const res = await follow(href, method);
      assert.equal(res.status, 302, method);
      assert.equal(res.headers.get('location'), expected, method);
    }
    assert.deepEqual(await clicks(org.orgId), [{ destination: link }], 'the GET counted, as signed; the HEAD not');
  });

  test('a token is 404 unless it is exactly as signed: its MAC spelled otherwise, other characters, or past the longest token', async () => {
    const { org, imageId, user } = await campaignOrg();
    assert.equal(
      (await create(org, { name: 'Spring', startsAt: startsAt(), audience: {}, variants: [{ imageId, link: 'https://shop.example/', alt: 'S', weight: 1 }] }))
        .status,
      201,
    );
    const href = linkIn((await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}/signature`, { key: org.key })).body.html);
    // A 16-byte MAC is 22 base64url characters; the last carries 4 unused bits, so 15 other
    // characters decode to the same bytes. Each is another string, not ours.
    const last = href.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const group = alphabet.slice(Math.floor(alphabet.indexOf(last) / 16) * 16, Math.floor(alphabet.indexOf(last) / 16) * 16 + 16);
    const tokens = [...group].filter((c) => c !== last).map((c) => href.slice(0, -1) + c);
    assert.equal(tokens.length, 15);
    tokens.push(`${href}=`, `${href.slice(0, -3)}/${href.slice(-2)}`, `${href}${'A'.repeat(MAX_TOKEN_CHARS)}`);
    for (const url of tokens) {
      const res = await follow(url);
      assert.equal(res.status, 404, url.slice(-30));
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    }
    assert.equal((await follow(href)).status, 302, 'the token as signed');
    assert.equal((await clicks(org.orgId)).length, 1, 'only that one counted');
  });

  test("a track mark written into a person's own text renders inert: no signed link to where it points", async () => {
    const org = await createOrg(server);
    await createTemplate(server, org, { name: 'Plain', html: '<p>{{ user.name }} · {{ user.title }}</p>', isDefault: true });
    const mark = `__sigsvc_track_${Buffer.from('https://evil.example/phish').toString('base64url')}__`;
    const user = await createUser(server, org, { name: `Eve ${mark}`, title: mark });
    const sig = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}/signature`, { key: org.key });
    assert.equal(sig.status, 200, sig.text);
    assert.ok(!sig.body.html.includes('/v1/c/'), sig.body.html);
    assert.ok(sig.body.html.includes('__sigsvc_untracked_'), sig.body.html);
  });

  test('year 0 is a 400 that changes nothing (it was a 500), in a campaign and in its stats', async () => {
    const { org, imageId } = await campaignOrg();
    const variants = [{ imageId, link: 'https://shop.example/', alt: 'S', weight: 1 }];
    const refused = await create(org, { name: 'Zero', startsAt: '0000-01-01T00:00:00Z', audience: {}, variants });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.details.field, 'body.startsAt');
    const made = await create(org, { name: 'One', startsAt: startsAt(), audience: {}, variants });
    const id = made.body.campaignId as string;
    const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/campaigns/${id}`, {
      key: org.key,
      body: { version: 1, endsAt: '0000-06-01T00:00:00Z' },
    });
    assert.equal(patched.status, 400, patched.text);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${id}`, { key: org.key })).body.version, 1, 'unchanged');
    // A version that is no version says what is wrong with it, not that it is missing.
    for (const [version, says] of [
      [0, '>=1'],
      [1.5, 'int'],
      [undefined, 'is required'],
    ] as const) {
      const res = await server.request('PATCH', `/v1/orgs/${org.orgId}/campaigns/${id}`, { key: org.key, body: { version, name: 'x' } });
      assert.equal(res.status, 400);
      assert.ok(res.body.error.message.includes(says), `${version}: ${res.body.error.message}`);
    }
    const stats = await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${id}/stats?from=0000-01-01`, { key: org.key });
    assert.equal(stats.status, 400, stats.text);
    assert.equal(stats.body.error.details.field, 'query.from');
  });

  test('a campaign not started yet: its stats by default are its first day (it was a 400 naming a parameter not sent); from after to is still a 400', async () => {
    const { org, imageId } = await campaignOrg();
    const first = new Date(Date.now() + 10 * 86_400_000);
    const made = await create(org, {
      name: 'Later',
      startsAt: first.toISOString(),
      audience: {},
      variants: [{ imageId, link: 'https://shop.example/', alt: 'S', weight: 1 }],
    });
    const stats = await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${made.body.campaignId}/stats`, { key: org.key });
    assert.equal(stats.status, 200, stats.text);
    assert.deepEqual(stats.body.days, []);
    const backwards = await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${made.body.campaignId}/stats?from=2026-02-02&to=2026-02-01`, {
      key: org.key,
    });
    assert.equal(backwards.status, 400);
  });

  test('links with a control character, or past 2,000 characters, are never tracked: a 400 in a campaign, left as they are by the track filter', async () => {
    const { org, user, imageId } = await campaignOrg();
    for (const link of [`https://ctl.example/${'\u0001'.repeat(1980)}`, 'https://ctl.example/a\u0000b', 'https://ctl.example/\u007f']) {
      const made = await create(org, { name: 'Controls', startsAt: startsAt(), audience: {}, variants: [{ imageId, link, alt: 'C', weight: 1 }] });
      assert.equal(made.status, 400, made.text);
      assert.equal(made.body.error.details?.field, 'body.variants.0.link', made.text);
    }
    // In hand-written HTML: a NUL decoded into the link (the database's text cannot hold it: such a
    // click row held every org's clicks back), and a link longer than the click route takes.
    const long = `https://long.example/${'a'.repeat(2000)}`;
    await createTemplate(server, org, {
      name: 'Odd links',
      html: `<a href="{{ 'https://nul.example/%00zz' | url_decode | track }}">nul</a> <a href="{{ '${long}' | track }}">long</a> <a href="{{ 'https://ok.example/' | track }}">ok</a>`,
      isDefault: true,
    });
    const sig = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}/signature`, { key: org.key });
    const hrefs = [...(sig.body.html as string).matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '');
    assert.equal(hrefs.length, 3, sig.body.html);
    assert.ok(!hrefs[0]?.includes('/v1/c/'), `the NUL link untracked: ${hrefs[0]}`);
    assert.equal(hrefs[1], long, 'the long link as it is');
    assert.ok(hrefs[2]?.startsWith(`${server.url}/v1/c/`), 'a plain link still tracked');
  });

  test("a click row the database refuses for its data is dropped alone: the other orgs' clicks are written, and later ones too", async () => {
    const [one, two] = [await createOrg(server), await createOrg(server)];
    // A token signed before links were checked (lib/track-mark.ts): its destination holds a NUL.
    const tokenOf = (orgId: string, destination: string) =>
      server.deps.clicks.trackUrl({ orgId, campaignId: null, variant: null, userId: one.ownerUserId, destination }).split('/v1/c/')[1] as string;
    const request = { address: '198.51.100.7', userAgent: 'Mozilla/5.0 Safari/605.1.15' };
    assert.ok(server.deps.clicks.follow(tokenOf(two.orgId, 'https://two.example/before'), request, true));
    assert.ok(server.deps.clicks.follow(tokenOf(one.orgId, 'https://one.example/\u0000'), request, true));
    assert.ok(server.deps.clicks.follow(tokenOf(two.orgId, 'https://two.example/after'), request, true));
    assert.deepEqual((await clicks(two.orgId)).map((r) => r.destination).sort(), ['https://two.example/after', 'https://two.example/before']);
    assert.deepEqual(await clicks(one.orgId), [], 'the refused row dropped');
    assert.ok(server.deps.clicks.follow(tokenOf(two.orgId, 'https://two.example/later'), request, true));
    assert.equal((await clicks(two.orgId)).length, 3, 'and the next write is not held back');
  });

  test("a link that the campaign's UTM parameters take past 2,000 characters is a 400 naming it, on create and on a PATCH of the UTM alone", async () => {
    const { org, imageId } = await campaignOrg();
    const link = `https://shop.example/${'p'.repeat(1900)}`;
    const long = { source: '&'.repeat(60), medium: 'email', campaign: 'x' };
    const refused = await create(org, { name: 'Long', startsAt: startsAt(), audience: {}, variants: [{ imageId, link, alt: 'L', weight: 1 }], utm: long });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.details.field, 'body.variants.0.link');
    const made = await create(org, { name: 'Long', startsAt: startsAt(), audience: {}, variants: [{ imageId, link, alt: 'L', weight: 1 }] });
    assert.equal(made.status, 201, made.text);
    const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/campaigns/${made.body.campaignId}`, { key: org.key, body: { version: 1, utm: long } });
    assert.equal(patched.status, 400, patched.text);
    const list = await server.request('GET', `/v1/orgs/${org.orgId}/campaigns`, { key: org.key });
    assert.deepEqual(
      list.body.items.map((c: { utm: unknown }) => c.utm),
      [null],
      'one campaign, its UTM unchanged',
    );
  });

  test("only a signature that shows the banner counts an impression, its pixel an open of the campaign, and only the banner's link a click of it", async () => {
    const { org, user, imageId } = await campaignOrg();
    const made = await create(org, {
      name: 'Shown',
      startsAt: startsAt(),
      audience: {},
      variants: [{ imageId, link: 'https://shop.example/sale', alt: 'Sale', weight: 1 }],
    });
    const campaignId = made.body.campaignId as string;
    const book = `<a href="{{ 'https://book.example/demo' | track }}">Book</a><img src="{{ pixel_url }}" alt="">`;
    const without = await createTemplate(server, org, { name: 'Without', html: `<p>{{ user.name }}</p>${book}` });
    const withBanner = await createTemplate(server, org, { name: 'With', html: `<p>{{ user.name }}</p>${book}{{ campaign.banner | raw }}` });
    const render = async (templateId: string) =>
      (await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key, body: { templateId } })).body.html as string;
    const stats = async () => {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/campaigns/${campaignId}/stats`, { key: org.key });
      return res.body.variants[0] as { impressions: number; clicks: number };
    };
    const links = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    const pixel = (html: string) => /<img src="([^"]*\/v1\/p\/[^"]*)"/.exec(html)?.[1] ?? '';

    const plain = await render(without.templateId);
    await render(without.templateId);
    assert.equal(pixel(plain), `${server.url}/v1/p/${user.userId}`, 'no campaign in the pixel of a signature without the banner');
    assert.equal((await follow(links(plain)[0]!)).status, 302);
    assert.deepEqual(await stats(), { ...(await stats()), impressions: 0, clicks: 0 }, 'two renders and a click without the banner count nothing');

    const shown = await render(withBanner.templateId);
    assert.match(pixel(shown), /\?c=/, 'the pixel of a signature with the banner names its campaign');
    const [bookLink, bannerLink] = links(shown) as [string, string];
    assert.equal((await follow(bookLink)).status, 302);
    assert.equal((await follow(bannerLink)).headers.get('location'), 'https://shop.example/sale');
    assert.deepEqual(await stats(), { ...(await stats()), impressions: 1, clicks: 1 }, "one render with the banner, and its banner's click");
    await server.deps.clicks.flush();
    const rows = await server.deps.database.db
      .selectFrom('clicks')
      .select(['destination', 'campaign_id'])
      .where('org_id', '=', org.orgId)
      .orderBy('id')
      .execute();
    assert.deepEqual(rows, [
      { destination: 'https://book.example/demo', campaign_id: null },
      { destination: 'https://book.example/demo', campaign_id: null },
      { destination: 'https://shop.example/sale', campaign_id: campaignId },
    ]);
  });
});
