import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg, uploadPng, userWithPassword } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { manualClock } from './helpers/clock.ts';

// Campaigns (DECISIONS wave 3, "Campaigns") over HTTP, on a clock that moves only when the test
// says: the resource and its status, the banner in the audience's signatures and not others',
// across a start and an end; the newest started wins; variants stable per person.
describe('campaigns', () => {
  const HOUR = 3_600_000;
  const clock = manualClock(Date.parse('2026-12-01T08:00:00Z'));
  let server: TestServer;
  before(async () => {
    server = await startServer({}, { clock: clock.now });
  });
  after(() => server.close());

  const as = (org: TestOrg) => (method: string, path: string, body?: unknown) =>
    server.request(method, `/v1/orgs/${org.orgId}${path}`, { key: org.key, ...(body !== undefined ? { body } : {}) });
  const upload = (org: TestOrg, width: number, height: number) => uploadPng(server, org, width, height);
  const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
  const signature = async (org: TestOrg, userId: string) => {
    const res = await as(org)('GET', `/users/${userId}/signature`);
    assert.equal(res.status, 200, res.text);
    return res.body as { html: string; text: string };
  };

  async function setUp() {
    const org = await createOrg(server);
    await createTemplate(server, org, {
      name: 'With banner',
      html: '<p>{{ user.name }}</p>{{ campaign.banner | raw }}',
      text: '{{ user.name }}\n{{ campaign.text }}',
      isDefault: true,
    });
    const sales = await createUser(server, org, { name: 'Sally', department: 'Sales' });
    const engineer = await createUser(server, org, { name: 'Eddie', department: 'Engineering' });
    return { org, sales, engineer, images: [await upload(org, 1200, 300), await upload(org, 600, 100)] };
  }

  test('a campaign is scheduled, shows for its audience from its start, and stops at its end', async () => {
    const { org, sales, engineer, images } = await setUp();
    const api = as(org);
    const made = await api('POST', '/campaigns', {
      name: 'Winter sale',
      startsAt: at(HOUR),
      endsAt: at(3 * HOUR),
      audience: { departments: ['Sales'] },
      variants: [{ imageId: images[0], link: 'https://shop.example/winter?ref=sig', alt: 'Winter sale', weight: 1 }],
      utm: { source: 'signature', medium: 'email', campaign: 'winter' },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.status, 'scheduled');
    const id = made.body.campaignId as string;
    assert.doesNotMatch((await signature(org, sales.userId)).html, /<img/, 'not before its start');

    clock.advance(HOUR);
    assert.equal((await api('GET', `/campaigns/${id}`)).body.status, 'active');
    const shown = await signature(org, sales.userId);
    assert.match(shown.html, new RegExp(`<img src="${server.url}/v1/images/${images[0]}" alt="Winter sale" width="600" height="150"`));
    // The link is tracked (test/clicks.test.ts): it leads to the destination with the UTM parameters.
    const href = /href="([^"]+)"/.exec(shown.html)![1]!;
    assert.ok(href.startsWith(`${server.url}/v1/c/`), href);
    const hop = await fetch(href, { method: 'HEAD', redirect: 'manual' });
    assert.equal(hop.headers.get('location'), 'https://shop.example/winter?ref=sig&utm_source=signature&utm_medium=email&utm_campaign=winter');
    assert.ok(shown.text.includes(`Winter sale: ${href}`), shown.text);
    assert.doesNotMatch((await signature(org, engineer.userId)).html, /<img/, 'not for another audience');

    clock.advance(2 * HOUR);
    assert.equal((await api('GET', `/campaigns/${id}`)).body.status, 'ended');
    assert.doesNotMatch((await signature(org, sales.userId)).html, /<img/, 'not after its end');
    const listed = await api('GET', '/campaigns');
    assert.deepEqual(
      listed.body.items.map((c: { campaignId: string; status: string }) => [c.campaignId, c.status]),
      [[id, 'ended']],
    );
  });

  test('ending now with PATCH {version, endsAt}; the newest started wins an overlap; DELETE stops a banner', async () => {
    const { org, sales, images } = await setUp();
    const api = as(org);
    const base = { audience: {}, variants: [{ imageId: images[1], link: 'https://a.example/', alt: 'A', weight: 1 }] };
    const first = (await api('POST', '/campaigns', { ...base, name: 'First', startsAt: at(-2 * HOUR) })).body;
    const second = (
      await api('POST', '/campaigns', {
        ...base,
        name: 'Second',
        startsAt: at(-HOUR),
        variants: [{ imageId: images[1], link: 'https://b.example/', alt: 'B', weight: 1 }],
      })
    ).body;
    assert.match((await signature(org, sales.userId)).html, /alt="B"/, 'the newest started');
    const stale = await api('PATCH', `/campaigns/${second.campaignId}`, { version: 99, endsAt: at(0) });
    assert.equal(stale.status, 409, stale.text);
    const ended = await api('PATCH', `/campaigns/${second.campaignId}`, { version: second.version, endsAt: at(0) });
    assert.equal(ended.status, 200, ended.text);
    assert.equal(ended.body.status, 'ended');
    assert.match((await signature(org, sales.userId)).html, /alt="A"/, 'the other one again');
    assert.equal((await api('DELETE', `/campaigns/${first.campaignId}`)).status, 204);
    assert.doesNotMatch((await signature(org, sales.userId)).html, /<img/);
    assert.equal((await api('GET', `/campaigns/${first.campaignId}`)).status, 404);
  });

  test('each person keeps one variant; weight 0 pauses a variant; bad input is 400', async () => {
    const { org, images } = await setUp();
    const api = as(org);
    const people = await Promise.all(Array.from({ length: 12 }, (_, i) => createUser(server, org, { name: `P${i}`, department: 'Sales' })));
    const made = await api('POST', '/campaigns', {
      name: 'Two',
      startsAt: at(-HOUR),
      audience: {},
      variants: [
        { imageId: images[0], link: 'https://one.example/', alt: 'One', weight: 1 },
        { imageId: images[1], link: 'https://two.example/', alt: 'Two', weight: 1 },
      ],
    });
    assert.equal(made.status, 201, made.text);
    const seen = async () => Promise.all(people.map(async (p) => (/alt="One"/.test((await signature(org, p.userId)).html) ? 1 : 2)));
    const first = await seen();
    assert.deepEqual(await seen(), first, 'the same variant every time');
    assert.ok(first.includes(1) && first.includes(2), `both variants shown among 12 people: ${first}`);
    const paused = await api('PATCH', `/campaigns/${made.body.campaignId}`, {
      version: made.body.version,
      variants: [
        { imageId: images[0], link: 'https://one.example/', alt: 'One', weight: 0 },
        { imageId: images[1], link: 'https://two.example/', alt: 'Two', weight: 1 },
      ],
    });
    assert.equal(paused.status, 200, paused.text);
    assert.deepEqual(
      await seen(),
      people.map(() => 2),
    );

    const other = await createOrg(server);
    const foreignImage = await upload(other, 10, 10);
    const bad: [unknown, string][] = [
      [
        { name: 'x', startsAt: at(0), audience: {}, variants: [{ imageId: foreignImage, link: 'https://x.example/', alt: '', weight: 1 }] },
        'body.variants.0.imageId',
      ],
      [
        { name: 'x', startsAt: at(0), endsAt: at(-1), audience: {}, variants: [{ imageId: images[0], link: 'https://x.example/', alt: '', weight: 1 }] },
        'body.endsAt',
      ],
      [
        { name: 'x', startsAt: at(0), audience: {}, variants: [{ imageId: images[0], link: 'javascript:alert(1)', alt: '', weight: 1 }] },
        'body.variants.0.link',
      ],
      [
        { name: 'x', startsAt: at(0), audience: {}, variants: [{ imageId: images[0], link: 'https://x.example/', alt: '', weight: -1 }] },
        'body.variants.0.weight',
      ],
      [{ name: 'x', startsAt: at(0), audience: {}, variants: [] }, 'body.variants'],
    ];
    for (const [body, field] of bad) {
      const res = await api('POST', '/campaigns', body);
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.ok(JSON.stringify(res.body.error).includes(field), `${field}: ${res.text}`);
    }
    assert.equal((await api('GET', '/campaigns')).body.items.length, 1);
  });
});

// Who reads campaigns, on the real clock: ID tokens are checked against the time they were made.
describe('campaigns: who reads them', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test("campaigns and their stats (JSON and CSV) are the admins': a member's ID token is 403; admin, owner and API key read them; another org's key is 403", async () => {
    const org = await createOrg(server);
    const image = await uploadPng(server, org, 600, 100);
    const made = await server.request('POST', `/v1/orgs/${org.orgId}/campaigns`, {
      key: org.key,
      body: {
        name: 'Roles',
        startsAt: new Date(Date.now() - 60_000).toISOString(),
        audience: {},
        variants: [{ imageId: image, link: 'https://roles.example/', alt: 'Roles', weight: 1 }],
      },
    });
    assert.equal(made.status, 201, made.text);
    const id = made.body.campaignId as string;
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const token = async (role: 'member' | 'admin' | 'owner') => {
      const account = await userWithPassword(server, org, role);
      return (await signIn(app, { username: account.email, password: account.password })).tokens.id_token as string;
    };
    const tokens = { member: await token('member'), admin: await token('admin'), owner: await token('owner') };
    const reads: [string, Record<string, string>][] = [
      ['/campaigns', {}],
      [`/campaigns/${id}`, {}],
      [`/campaigns/${id}/stats`, {}],
      [`/campaigns/${id}/stats`, { accept: 'text/csv' }],
    ];
    const other = await createOrg(server);
    for (const [path, headers] of reads) {
      const url = `/v1/orgs/${org.orgId}${path}`;
      const what = `GET ${path} ${headers.accept ?? ''}`;
      const member = await server.request('GET', url, { token: tokens.member, headers });
      assert.equal(member.status, 403, `${what} as a member: ${member.text}`);
      assert.equal(member.body.error.code, 'FORBIDDEN');
      assert.doesNotMatch(member.text, /Roles|roles\.example/, `${what}: nothing of the campaign in the refusal`);
      for (const [who, cred] of [
        ['admin', { token: tokens.admin }],
        ['owner', { token: tokens.owner }],
        ['API key', { key: org.key }],
      ] as const) {
        const res = await server.request('GET', url, { ...cred, headers });
        assert.equal(res.status, 200, `${what} as ${who}: ${res.text}`);
      }
      const foreign = await server.request('GET', url, { key: other.key, headers });
      assert.equal(foreign.status, 403, `${what} with another org's key: ${foreign.text}`);
    }
  });
});
