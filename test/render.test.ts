import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { manualClock } from './helpers/clock.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { PIXEL } from '../src/tracking/routes.ts';
import { usersRepo } from '../src/store/repositories/users.ts';
import { api, ok, refused } from './helpers/api.ts';
import { waitFor } from './helpers/wait.ts';

const DESIGN_STYLE = { fontFamily: 'arial', fontSize: 13, textColor: '#222222', accentColor: '#0055aa', linkColor: '#0055aa' } as const;

describe('templates as untrusted input, and rendering', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer({ RENDER_LIMIT_BYTES: '30720' });
    org = await createOrg(server);
  });
  after(() => server.close());
  const render = (o: TestOrg, userId: string, body?: { templateId?: string }) =>
    api(server, o).POST('/v1/orgs/{orgId}/render/{userId}', { params: { path: { orgId: o.orgId, userId } }, ...(body ? { body } : {}) });
  /** A render that must succeed: its signature. */
  const rendered = async (o: TestOrg, userId: string, body?: { templateId?: string }) => ok(await render(o, userId, body), 200);
  const createRaw = (o: TestOrg, body: { name: string; html: string; text?: string }) =>
    api(server, o).POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId: o.orgId } }, body });

  test('variables are rendered into HTML and text, with the pixel URL', async () => {
    const o = await createOrg(server, { name: 'Acme & Sons' });
    const user = await createUser(server, o, { name: 'Grace Hopper', title: 'Admiral', phone: '+1 555 0100', mobile: '+1 555 0101', department: 'Navy' });
    const t = await createTemplate(server, o, {
      html: '<table><tr><td><b>{{ user.name }}</b>, {{ user.title }} ({{ user.department }})<br>{{ org.name }} · {{ user.email }} · {{ user.phone }} · {{ user.mobile }}<img src="{{ pixel_url }}" width="1" height="1" alt=""></td></tr></table>',
      text: '{{ user.name }} | {{ user.title }} | {{ org.name }}',
    });
    const res = await rendered(o, user.userId);
    assert.equal(res.templateId, t.templateId);
    assert.match(res.html, /<b>Grace Hopper<\/b>, Admiral \(Navy\)/);
    assert.match(res.html, /Acme &amp; Sons/);
    assert.ok(res.html.includes(`src="${server.deps.config.baseUrl}/v1/p/${user.userId}"`));
    assert.equal(res.text, 'Grace Hopper | Admiral | Acme & Sons');
    assert.equal(res.bytes, Buffer.byteLength(res.html));
    assert.deepEqual(res.warnings, []);
  });

  test('hostile user fields are escaped in HTML and cannot make a javascript: link', async () => {
    const o = await createOrg(server);
    const user = await createUser(server, o, { name: '<script>alert(1)</script>', phone: 'javascript:alert(1)' });
    await createTemplate(server, o, { html: '<p>{{ user.name }}</p><a href="{{ user.phone }}">call</a>', text: '{{ user.name }}' });
    const res = await rendered(o, user.userId);
    assert.ok(!res.html.includes('<script'), res.html);
    assert.match(res.html, /&lt;script&gt;/);
    assert.ok(!/href="javascript:/i.test(res.html), res.html);
    assert.equal(res.text, '<script>alert(1)</script>', 'plain text is not HTML');
  });

  test('the sanitizer removes scripts, handlers, iframes, forms and javascript: URLs; CSS is inlined', async () => {
    const o = await createOrg(server);
    const user = await createUser(server, o);
    const t = await createTemplate(server, o, {
      html: '<style>p { color: #c00; } .big { font-size: 18px }</style><p class="big" onclick="steal()">{{ user.name }}</p><script>evil()</script><iframe src="https://x"></iframe><form><input></form><a href="javascript:evil()">x</a><a href="https://example.com">ok</a>',
    });
    const stored = ok(await api(server, o).GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId: o.orgId, templateId: t.templateId } } }));
    assert.match(stored.html, /<script>/, 'what the admin wrote is kept as written');
    const { html } = await rendered(o, user.userId);
    for (const bad of ['<script', 'onclick', '<iframe', '<form', '<input', 'javascript:', '<style']) assert.ok(!html.includes(bad), `${bad} in ${html}`);
    assert.match(html, /<p class="big" style="color:#c00;font-size:18px">/);
    assert.match(html, /<a href="https:\/\/example.com">ok<\/a>/);
  });

  test('syntax errors: 400 with line and column; unknown variables: a warning', async () => {
    const bad = refused(await createRaw(org, { name: 'bad', html: '<p>\n  {{ user.name </p>' }), 400);
    assert.equal(bad.error.details?.field, 'body.html');
    assert.equal(bad.error.details?.line, 2);
    assert.equal(bad.error.details?.column, 3);
    const badText = refused(await createRaw(org, { name: 'bad', html: '<p/>', text: '{% if %}' }), 400);
    assert.equal(badText.error.details?.field, 'body.text');
    const warn = ok(await createRaw(org, { name: 'warn', html: '<p>{{ user.nickname }} {{ user.name }}</p>' }), 201);
    assert.equal(warn.warnings.length, 1);
    assert.match(warn.warnings[0] ?? '', /user\.nickname/);
  });

  test('templates that loop for ever, build huge output or include files are refused; others are served meanwhile', async () => {
    const cases = [
      '{% for i in (1..100000000) %}{% for j in (1..100000000) %}x{% endfor %}{% endfor %}',
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
      "{% include 'secrets' %}",
      "{% render '/etc/passwd' %}",
    ];
    for (const html of cases) {
      const [res, health] = await Promise.all([
        createRaw(org, { name: 'hostile', html }),
        api(server, org).GET('/v1/orgs/{orgId}', { params: { path: { orgId: org.orgId } } }),
      ]);
      // Past a limit is the template's doing: 400 naming the field (docs/api.md, "Rendering and the pixel").
      const refusal = refused(res, 400);
      assert.equal(refusal.error.details?.field, 'body.html');
      assert.ok(!/root:x?:0/.test(JSON.stringify(refusal)), 'no file content leaks');
      assert.equal(health.response.status, 200);
    }
  });

  test('a signature refused for its limits costs a render once per version: a retry is answered from the cache, naming the template, not body.html', async () => {
    const o = await createOrg(server);
    // Cheap for the sample person a save renders with (ada@example.com), past the CPU limit for anyone else.
    const t = await createTemplate(server, o, {
      html: '{% unless user.email contains "example.com" %}{% for i in (1..300) %}{% for j in (1..300) %}{% for k in (1..300) %}{% endfor %}{% endfor %}{% endfor %}{% endunless %}ok',
    });
    const user = await createUser(server, o);
    const cacheCounts = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const count = (result: string) => Number(new RegExp(`^render_cache_requests_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1]);
      return { hit: count('hit'), miss: count('miss') };
    };
    const before = await cacheCounts();
    const first = refused(await render(o, user.userId, { templateId: t.templateId }), 400).error;
    // The request sent no html: the refusal names the template and its part, for this user.
    assert.equal(first.details?.field, 'templateId');
    assert.equal(first.details?.part, 'html');
    assert.ok(!/body\./.test(first.message), first.message);
    assert.match(first.message, /^The template's html part exceeds the render limits \(100 ms of CPU time, .*\) with this user's values/);
    const afterFirst = await cacheCounts();
    assert.deepEqual(afterFirst, { hit: before.hit, miss: before.miss + 1 });
    // The retries are the same refusal, found where outputs are: no render thread works on them.
    for (let i = 0; i < 3; i++) assert.deepEqual(refused(await render(o, user.userId, { templateId: t.templateId }), 400).error.message, first.message);
    assert.deepEqual(await cacheCounts(), { hit: afterFirst.hit + 3, miss: afterFirst.miss });
    // A new version of the user is a new signature, rendered again.
    ok(
      await api(server, o).PATCH('/v1/orgs/{orgId}/users/{userId}', {
        params: { path: { orgId: o.orgId, userId: user.userId } },
        body: { email: `renamed-${user.userId.slice(0, 8)}@example.com`, version: user.version },
      }),
      200,
    );
    assert.match((await rendered(o, user.userId, { templateId: t.templateId })).html, /ok/);
  });

  test("one org's renders past the CPU limit do not hold another org's work: its compile is served before most of them", async () => {
    const noisy = await createOrg(server);
    const quiet = await createOrg(server);
    const t = await createTemplate(server, noisy, {
      html: '{% unless user.email contains "example.com" %}{% for i in (1..300) %}{% for j in (1..300) %}{% for k in (1..300) %}{% endfor %}{% endfor %}{% endfor %}{% endunless %}ok',
    });
    // Eight users: eight signatures, none answered from a remembered refusal; each costs ~100 ms of a thread.
    const users = await Promise.all(Array.from({ length: 8 }, () => createUser(server, noisy)));
    const misses = async () => Number(/^render_cache_requests_total\{result="miss"\} (\d+)/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);
    const before = await misses();
    let answered = 0;
    const renders = users.map((u) =>
      render(noisy, u.userId, { templateId: t.templateId }).then((res) => {
        answered++;
        return res;
      }),
    );
    // Every render has missed the cache, so all eight wait for a render thread, before the quiet org asks.
    await waitFor(async () => (await misses()) >= before + 8, 'the noisy renders to be queued');
    const compiled = await api(server, quiet).POST('/v1/orgs/{orgId}/templates/compile', {
      params: { path: { orgId: quiet.orgId } },
      body: { design: { version: 1, layout: 'stacked', style: DESIGN_STYLE, blocks: [{ type: 'identity', show: ['name'] }] } },
    });
    const answeredBefore = answered;
    ok(compiled, 200);
    for (const res of await Promise.all(renders)) refused(res, 400);
    // Served in turn: at most the render in flight and one more of the noisy org's go before it.
    assert.ok(answeredBefore <= 2, `${answeredBefore} of the noisy org's 8 renders were answered before the quiet org's compile`);
  });

  test('output over RENDER_LIMIT_BYTES is 413 saying how large it was', async () => {
    const o = await createOrg(server);
    const user = await createUser(server, o, { name: 'N'.repeat(200) });
    await createTemplate(server, o, { html: '{% for i in (1..200) %}<p>{{ user.name }}</p>{% endfor %}' });
    const { error } = refused(await render(o, user.userId), 413);
    assert.equal(error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(error.details?.limitBytes, 30720);
    assert.ok(error.details?.bytes > 30720);
    assert.match(error.message, new RegExp(`${error.details?.bytes} bytes`));
  });

  test('default template rules; soft-deleted users and templates are 404', async () => {
    const o = await createOrg(server);
    const user = await createUser(server, o);
    const client = api(server, o);
    const deleteTemplate = async (templateId: string) =>
      ok(await client.DELETE('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId: o.orgId, templateId } } }), 204);
    const none = refused(await render(o, user.userId), 404);
    assert.match(none.error.message, /no default template/);
    const a = await createTemplate(server, o, { html: '<p>A</p>' });
    const b = await createTemplate(server, o, { name: 'B', html: '<p>B</p>' });
    assert.match((await rendered(o, user.userId)).html, /A/);
    assert.match((await rendered(o, user.userId, { templateId: b.templateId })).html, /B/);
    await deleteTemplate(b.templateId);
    refused(await render(o, user.userId, { templateId: b.templateId }), 404);
    await deleteTemplate(a.templateId);
    refused(await render(o, user.userId), 404);
    await createTemplate(server, o, { html: '<p>C</p>' });
    ok(await client.DELETE('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId: o.orgId, userId: user.userId } } }), 204);
    refused(await render(o, user.userId), 404);
  });

  test('the cache serves fresh output after a template, user or org change', async () => {
    const o = await createOrg(server, { name: 'Before Org' });
    const user = await createUser(server, o, { name: 'Before User' });
    const t = await createTemplate(server, o, { html: '<p>v1 {{ user.name }} {{ org.name }}</p>' });
    const client = api(server, o);
    assert.match((await rendered(o, user.userId)).html, /v1 Before User Before Org/);
    assert.match((await rendered(o, user.userId)).html, /v1 Before User Before Org/);
    ok(
      await client.PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
        params: { path: { orgId: o.orgId, templateId: t.templateId } },
        body: { version: t.version, html: '<p>v2 {{ user.name }} {{ org.name }}</p>' },
      }),
    );
    assert.match((await rendered(o, user.userId)).html, /v2 Before User/);
    ok(
      await client.PATCH('/v1/orgs/{orgId}/users/{userId}', {
        params: { path: { orgId: o.orgId, userId: user.userId } },
        body: { version: user.version, name: 'After User' },
      }),
    );
    assert.match((await rendered(o, user.userId)).html, /v2 After User Before Org/);
    const orgNow = ok(await client.GET('/v1/orgs/{orgId}', { params: { path: { orgId: o.orgId } } }));
    ok(await client.PATCH('/v1/orgs/{orgId}', { params: { path: { orgId: o.orgId } }, body: { version: orgNow.version, name: 'After Org' } }));
    assert.match((await rendered(o, user.userId)).html, /v2 After User After Org/);
  });

  test("another org asking for this org's user or template finds nothing, and hides nothing from this org", async () => {
    const [mine, other] = [await createOrg(server), await createOrg(server)];
    const user = await createUser(server, mine);
    const t = await createTemplate(server, mine, { html: '<p>mine {{ user.name }}</p>' });
    await createTemplate(server, other);
    // Asked first by the other org: 404 both times, and the caches must not remember "missing" for this org.
    refused(await render(other, user.userId), 404);
    refused(await render(other, user.userId, { templateId: t.templateId }), 404);
    const res = await rendered(mine, user.userId, { templateId: t.templateId });
    assert.match(res.html, /mine Ada Lovelace/);
    assert.equal((await render(other, user.userId)).response.status, 404, 'and still not for the other org once cached here');
  });

  test("a member renders only their own signature (403 for anyone else's, as GET …/signature); admins, the owner and API keys render anyone's", async () => {
    const o = await createOrg(server);
    await createTemplate(server, o, { html: '<p>{{ user.name }}</p>', text: '{{ user.name }}' });
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const tokenOf = async (role: 'member' | 'admin' | 'owner') => {
      const account = await userWithPassword(server, o, role);
      return { userId: account.userId, token: (await signIn(app, { username: account.email, password: account.password })).tokens.id_token as string };
    };
    const [member, admin, owner] = [await tokenOf('member'), await tokenOf('admin'), await tokenOf('owner')];
    const colleague = await createUser(server, o, { name: 'Carla Colleague' });
    const renderAs = (cred: { token: string } | { key: string }, userId: string) => server.request('POST', `/v1/orgs/${o.orgId}/render/${userId}`, cred);

    const own = await renderAs({ token: member.token }, member.userId);
    assert.equal(own.status, 200, own.text);
    for (const userId of [owner.userId, colleague.userId, admin.userId]) {
      const res = await renderAs({ token: member.token }, userId);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'FORBIDDEN');
      assert.equal(res.body.html, undefined);
      assert.doesNotMatch(res.text, /Carla/);
    }
    assert.equal((await renderAs({ token: member.token }, '00000000-0000-4000-8000-000000000000')).status, 404, 'an unknown id: 404, as the signature route');
    for (const cred of [{ token: admin.token }, { token: owner.token }, { key: o.key }]) {
      const res = await renderAs(cred, colleague.userId);
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.html, /Carla Colleague/);
    }
  });

  test('the first renders of many users at once are all right (their rows are read together)', async () => {
    const o = await createOrg(server, { seats: 100 });
    await createTemplate(server, o, { html: '<p>{{ user.name }}</p>' });
    const users = [];
    for (let i = 0; i < 30; i++) users.push(await createUser(server, o, { name: `Person ${i}` }));
    const gone = await createUser(server, o, { name: 'Gone' });
    ok(await api(server, o).DELETE('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId: o.orgId, userId: gone.userId } } }), 204);
    // Renders asked together (here: in one turn, straight to the service) read their users together.
    const reads: number[] = [];
    const findMany = usersRepo.findMany;
    usersRepo.findMany = (db, orgId, ids) => {
      reads.push(ids.length);
      return findMany(db, orgId, ids);
    };
    try {
      const direct = await Promise.allSettled([...users, gone].map((u) => server.deps.render.render(o.orgId, u.userId)));
      assert.deepEqual(
        direct.map((r) => r.status),
        [...Array(30).fill('fulfilled'), 'rejected'],
      );
    } finally {
      usersRepo.findMany = findMany;
    }
    assert.deepEqual(reads, [31], 'one query for the 31 users');
    // And over HTTP, each answer is its own user's; the deleted one is 404.
    const results = await Promise.all([...users, gone].map((u) => render(o, u.userId)));
    for (const [i, r] of results.slice(0, 30).entries()) assert.equal(ok(r, 200).html, `<p>Person ${i}</p>`);
    refused(results[30]!, 404);
  });

  test('preview renders an unsaved template; warnings for images without sizes', async () => {
    const o = await createOrg(server);
    const user = await createUser(server, o, { name: 'Preview Person' });
    const client = api(server, o);
    const preview = async (body: { userId: string; html: string; text?: string }) =>
      ok(await client.POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId: o.orgId } }, body }), 200);
    const res = await preview({
      userId: user.userId,
      html: '<p>{{ user.name }}</p><img src="https://cdn.example.com/logo.png" alt="logo">',
      text: '{{ user.name }}',
    });
    assert.match(res.html, /Preview Person/);
    assert.equal(res.templateId, null);
    assert.ok(res.warnings.some((w) => /width and height/.test(w)));
    const long = await preview({ userId: user.userId, html: `<p>${'x'.repeat(10_500)}</p>` });
    assert.ok(long.warnings.some((w) => /Gmail/.test(w)));
  });
});

describe('the open-tracking pixel', () => {
  let server: TestServer;
  // Opens are counted per UTC day of the service's clock: fixed at noon here, so a run that
  // crosses midnight still finds them on the day it expects.
  const noon = new Date();
  noon.setUTCHours(12, 0, 0, 0);
  const today = noon.toISOString().slice(0, 10);
  before(async () => {
    server = await startServer({}, { clock: manualClock(noon.getTime()).now });
  });
  after(() => server.close());

  const fetchPixel = (id: string, ua = 'Mozilla/5.0 (Macintosh) AppleWebKit Thunderbird') =>
    fetch(`${server.url}/v1/p/${id}`, { headers: { 'user-agent': ua } });

  test('the same GIF and no-cache headers for known, unknown and malformed ids', async () => {
    const org = await createOrg(server);
    const user = await createUser(server, org);
    for (const id of [user.userId, crypto.randomUUID(), 'not-a-uuid', 'x'.repeat(80)]) {
      const res = await fetchPixel(id);
      assert.equal(res.status, 200, id);
      assert.equal(res.headers.get('content-type'), 'image/gif');
      assert.equal(res.headers.get('cache-control'), 'no-store, no-cache, must-revalidate, max-age=0');
      assert.equal(res.headers.get('pragma'), 'no-cache');
      assert.equal(res.headers.get('expires'), '0');
      assert.equal(res.headers.get('content-length'), '43');
      assert.match(res.headers.get('x-correlation-id') ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(res.headers.get('x-ratelimit-limit'), 'the rate limit headers of the hook are carried over');
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(body.length, 43);
      assert.deepEqual(body, PIXEL);
    }
    const traced = await fetch(`${server.url}/v1/p/${user.userId}`, { headers: { 'x-correlation-id': 'pixel-trace' } });
    assert.equal(traced.headers.get('x-correlation-id'), 'pixel-trace');
    const head = await fetch(`${server.url}/v1/p/${user.userId}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'image/gif');
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  });

  test('opens reach the stats within about a second, without anyone flushing', async () => {
    const org = await createOrg(server);
    const user = await createUser(server, org);
    await fetchPixel(user.userId);
    // A deadline, not a measurement: the counter writes once a second.
    const deadline = Date.now() + 5000;
    let items: unknown[] = [];
    while (items.length === 0 && Date.now() < deadline) {
      items = ok(await api(server, org).GET('/v1/orgs/{orgId}/opens', { params: { path: { orgId: org.orgId } } })).items;
      if (items.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(items, [{ day: today, real: 1, proxied: 0 }]);
  });

  test('opens are counted for live users only, proxies apart, and read per day', async () => {
    const org = await createOrg(server);
    const user = await createUser(server, org);
    const gone = await createUser(server, org);
    const client = api(server, org);
    const opens = (query: { from?: string; to?: string; userId?: string } = {}) =>
      client.GET('/v1/orgs/{orgId}/opens', { params: { path: { orgId: org.orgId }, query } });
    ok(await client.DELETE('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId: org.orgId, userId: gone.userId } } }), 204);
    await fetchPixel(user.userId);
    await fetchPixel(user.userId);
    await fetchPixel(user.userId, 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)');
    await fetchPixel(user.userId, 'Mozilla/5.0');
    await fetchPixel(gone.userId);
    await fetchPixel(crypto.randomUUID());
    await server.deps.opens.flush();
    assert.deepEqual(ok(await opens()).items, [{ day: today, real: 2, proxied: 2 }]);
    assert.deepEqual(ok(await opens({ userId: gone.userId })).items, []);
    assert.deepEqual(ok(await opens({ from: '2020-01-01', to: '2020-01-02' })).items, []);
    refused(await opens({ from: '2021-01-01', to: '2020-01-02' }), 400);
    // Malformed on purpose: a raw query string.
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/opens?from=yesterday`, { key: org.key })).status, 400);
  });
});
