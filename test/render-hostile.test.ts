// Hostile templates as an attacker writes them: they never stall the service and never put script
// into a signature, whether the markup comes from the template, the user's
// fields, or both; and a template that tries to include a file reads why it cannot.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Parser } from 'htmlparser2';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { api, ok } from './helpers/api.ts';

// The three routes that compile or render a template, through the generated client.
const save = (server: TestServer, org: TestOrg, body: { name: string; html: string; text?: string }) =>
  api(server, org).POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId: org.orgId } }, body });
const preview = (server: TestServer, org: TestOrg, body: { userId: string; html: string }) =>
  api(server, org).POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId: org.orgId } }, body });
const render = (server: TestServer, org: TestOrg, userId: string, templateId: string) =>
  api(server, org).POST('/v1/orgs/{orgId}/render/{userId}', { params: { path: { orgId: org.orgId, userId } }, body: { templateId } });
/** An answer's status and body (the data or the error envelope), for assertions on either. */
const seen = async <D, E>(answer: Promise<{ data?: D; error?: E; response: Response }>) => {
  const { data, error, response } = await answer;
  return {
    status: response.status,
    data,
    error: error as { error: { code: string; message: string; details?: Record<string, any> } } | undefined,
    text: JSON.stringify(data ?? error),
  };
};

const nest = (n: number, inner = 'x') => `${'<div>'.repeat(n)}${inner}${'</div>'.repeat(n)}`;
// Loops, doubled strings, deep nesting, huge CSS, and more of their kind; each must be a 400 naming the field.
const HOSTILE: Record<string, string> = {
  'unclosed <% blocks': `<p>${'<%'.repeat(30_000)}</p>`,
  '2,000 style rules over 1,600 elements': `<style>${Array.from({ length: 2000 }, (_, i) => `.c${i} td{color:red}`).join('')}</style>${'<p class="c1">x</p>'.repeat(1600)}`,
  'heavy selectors within the selector cap': `<style>${Array.from({ length: 199 }, () => '*:not(.a):not(.b):not(.c) *{color:red}').join('')}</style>${'<b></b>'.repeat(1990)}`,
  'one rule of 9,000 declarations': `<style>p{${'color:red;'.repeat(9000)}}</style>${'<p>x</p>'.repeat(100)}`,
  '16k nested divs': '<div>'.repeat(16_000),
  '16k nested divs, closed': nest(16_000),
  'a loop for ever': '{% for i in (1..100000000) %}{% for j in (1..100000000) %}x{% endfor %}{% endfor %}',
  'a string doubled 30 times': '{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
  // 120,000 outputs: 6,600 in a row (the parse limit's worth) rendered in ~90 ms on a fast
  // machine, too near the 100 ms limit to be refused everywhere.
  'too many outputs to render': `{% for i in (1..20) %}${'{{ user.name }}'.repeat(6000)}{% endfor %}`,
};

describe('hostile templates never stall the service', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 1000 });
  });
  after(() => server.close());

  test('while hostile templates are saved, previewed and rendered, /health keeps answering; each gets its 400', async () => {
    const user = await createUser(server, org);
    // A template that is cheap with the sample values of a save, and explodes with this user's title.
    const slow = await createTemplate(server, org, {
      name: 'cubic in the title',
      html: '{% assign n = user.title | size %}{% for i in (1..n) %}{% for j in (1..n) %}{% for k in (1..n) %}<b>{{ k }}</b>{% endfor %}{% endfor %}{% endfor %}',
    });
    const longTitle = await createUser(server, org, { title: 'T'.repeat(200) });

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    let polling = true;
    let worstHealthMs = 0;
    let polls = 0;
    // A 503 whose every failing check timed out is /health answering that the database (or Redis)
    // was slow: on PostgreSQL in a loaded CI machine, its 1-s ping. The service's own stall is
    // the event loop's delay, bounded below. Anything else fails the test.
    const slowDependencies: string[] = [];
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const { response: res, error } = await api(server).GET('/health');
        const ms = performance.now() - started;
        const failing = Object.values(error?.error.details?.checks ?? {}).filter((c: any) => c.status !== 'ok');
        const timedOut = res.status === 503 && failing.length > 0 && failing.every((c: any) => c.error === 'timeout');
        assert.ok(res.status === 200 || timedOut, `/health ${res.status} ${JSON.stringify(error)}`);
        if (timedOut) slowDependencies.push(`${Math.round(ms)} ms: ${error?.error.message}`);
        else worstHealthMs = Math.max(worstHealthMs, ms);
        polls++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    try {
      // Valid Liquid (it prints 99,970 braces), 13 s of regex before: now it saves at once, and its
      // output is over the 30 KB render limit (413, docs/guide.md, "Limits").
      const braces = `{% raw %}${'{'.repeat(99_970)}{% endraw %}`;
      const [bracesSaved, bracesPreviewed] = await Promise.all([
        seen(save(server, org, { name: 'braces', html: braces })),
        seen(preview(server, org, { userId: user.userId, html: braces })),
      ]);
      assert.equal(bracesSaved.status, 201, bracesSaved.text.slice(0, 300));
      assert.equal(bracesPreviewed.status, 413, bracesPreviewed.text.slice(0, 300));
      for (const [name, html] of Object.entries(HOSTILE)) {
        const [saved, previewed] = await Promise.all([
          seen(save(server, org, { name: 'hostile', html })),
          seen(preview(server, org, { userId: user.userId, html })),
        ]);
        for (const [what, res] of [
          ['save', saved],
          ['preview', previewed],
        ] as const) {
          assert.equal(res.status, 400, `${what} of ${name}: ${res.status} ${res.text.slice(0, 300)}`);
          assert.equal(res.error?.error.code, 'BAD_REQUEST');
          assert.equal(res.error?.error.details?.field, 'body.html', `${what} of ${name}`);
          assert.ok(!/RangeError|call stack|ENOENT|at .*\.(ts|js):\d+/.test(res.error?.error.message ?? ''), res.error?.error.message);
        }
      }
      const rendered = await seen(render(server, org, longTitle.userId, slow.templateId));
      assert.equal(rendered.status, 400, rendered.text);
      assert.match(rendered.error?.error.message ?? '', /CPU time/);
      assert.ok(rendered.error?.error.details?.field);
      // The same template renders for a user with a short title, and the refusal did not stick.
      ok(await render(server, org, user.userId, slow.templateId), 200);
    } finally {
      polling = false;
      await poller;
      loop.disable();
    }
    const worstLoopMs = loop.max / 1e6;
    // Generous bounds for a shared, busy machine; the figures measured go to the log below.
    console.log(`hostile templates: worst /health ${worstHealthMs.toFixed(0)} ms over ${polls} polls; worst event-loop delay ${worstLoopMs.toFixed(0)} ms`);
    if (slowDependencies.length > 0) console.log(`hostile templates: /health found a dependency slow: ${slowDependencies.join('; ')}`);
    assert.ok(polls >= 5, `only ${polls} polls`);
    assert.ok(slowDependencies.length <= polls / 4, `a dependency slow in ${slowDependencies.length} of ${polls} polls`);
    assert.ok(worstHealthMs < 1000, `/health took ${worstHealthMs} ms`);
    assert.ok(worstLoopMs < 1000, `the event loop stalled ${worstLoopMs} ms`);
  });

  test('a template that includes files is told templates cannot, without the library internals', async () => {
    for (const [html, tag] of [
      ["{% include 'secrets' %}", 'include'],
      ["<p>\n  {% render '/etc/passwd' %}</p>", 'render'],
      ["{% layout 'base' %}", 'layout'],
    ] as const) {
      const res = await seen(save(server, org, { name: 'inc', html }));
      assert.equal(res.status, 400, res.text);
      assert.equal(res.error?.error.details?.field, 'body.html');
      assert.match(res.error?.error.message ?? '', new RegExp(`templates cannot include files: \\{% ${tag} %\\}`));
      assert.ok(!/ENOENT|lookup|\/etc\/passwd/.test(res.error?.error.message ?? ''), res.error?.error.message);
    }
    const text = await seen(save(server, org, { name: 'inc', html: '<p/>', text: "{% include 'x' %}" }));
    assert.equal(text.status, 400);
    assert.equal(text.error?.error.details?.field, 'body.text');
    assert.match(text.error?.error.message ?? '', /templates cannot include files/);
  });

  test('templates within the caps still save and render: nesting, CSS and size of a real signature', async () => {
    const css = `<style>${Array.from({ length: 40 }, (_, i) => `.c${i}{color:#${String(i).padStart(3, '0')};padding:${i}px}`).join('')}</style>`;
    const html = `${css}${nest(90, `<table><tr><td class="c1">{{ user.name }}</td></tr></table>`)}`;
    const t = await createTemplate(server, org, { name: 'deep but fine', html });
    const u = await createUser(server, org, { name: 'Within Caps' });
    const res = ok(await render(server, org, u.userId, t.templateId), 200);
    assert.match(res.html, /<td class="c1" style="color:#001;padding:1px">Within Caps<\/td>/);
  });
});

// Payloads in the style of the OWASP XSS filter evasion cheat sheet.
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<<SCRIPT>alert("XSS");//<</SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  "<IMG SRC=JaVaScRiPt:alert('XSS')>",
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>',
  '<IMG SRC="jav&#x09;ascript:alert(\'XSS\');">',
  '<a href=" &#14;  javascript:alert(\'XSS\');">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<IMG """><SCRIPT>alert("XSS")</SCRIPT>">',
  '<svg/onload=alert(1)>',
  "<BODY ONLOAD=alert('XSS')>",
  '<iframe src="javascript:alert(1)"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  "<STYLE>@import'http://x.test/xss.css';</STYLE>",
  '<div style="background-image: url(javascript:alert(1))">x</div>',
  '<div style="width: expression(alert(1));">x</div>',
  '<div style="behavior: url(xss.htc);">x</div>',
  '<div style="-moz-binding: url(http://x.test/xss.xml#xss)">x</div>',
  '<div style="position:fixed;top:0;left:0;width:100%;height:100%;z-index:9999">x</div>',
  '<p style="color:red;background:url(&#1;javascript:alert(1))">x</p>',
  '<a title="x" onmouseover="alert(1)" href="https://x.test">x</a>',
  '"><script>alert(1)</script>',
  '" onmouseover="alert(1)',
  'javascript:alert(1)',
  'x;background-image:url(javascript:alert(1));position:fixed',
];

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'background', 'xlink:href', 'data', 'poster']);

/** Parses the output as a browser would and fails on anything that can run script or escape the box. */
function assertSafe(html: string, context: string): void {
  const problems: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'meta', 'link', 'base', 'form', 'body'].includes(name)) problems.push(`<${name}>`);
      for (const [attr, value] of Object.entries(attributes)) {
        if (/^on/i.test(attr)) problems.push(`${attr}=`);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers drop control characters inside a URL's scheme, so the check must too
        const compact = value.replace(/[\s\x00-\x1f]+/g, '').toLowerCase();
        if (URL_ATTRIBUTES.has(attr) && /^[a-z][a-z0-9+.-]*:/.test(compact) && !/^(https?|mailto|tel|cid):/.test(compact)) problems.push(`${attr}=${value}`);
        if (attr === 'style' && /url\(|expression|behavior|binding|position|z-index|javascript|\\/i.test(value)) problems.push(`style=${value}`);
      }
    },
  });
  parser.end(html);
  assert.deepEqual(problems, [], `${context}: ${html}`);
}

describe('script never reaches a signature', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 1000 });
  });
  after(() => server.close());

  test('payloads through template HTML, user fields and both: on save, render and preview', async () => {
    const cases: { context: string; html: string; title: string }[] = [];
    for (const p of PAYLOADS) {
      const liquidString = p.replaceAll('"', '&quot;');
      cases.push(
        { context: 'template html', html: `<p>${p}</p>`, title: 'Engineer' },
        { context: 'template raw filter', html: `<p>{{ "${liquidString}" | raw }}</p>`, title: 'Engineer' },
        { context: 'template raw block', html: `<p>{% raw %}${p}{% endraw %}</p>`, title: 'Engineer' },
        { context: 'raw block smuggled into an attribute', html: `<a title="{% raw %}{{ x${p} }}{% endraw %}" href="https://x.test">a</a>`, title: 'Engineer' },
        { context: 'user title, raw', html: '<p>{{ user.title | raw }}</p>', title: p },
        { context: 'user title in href and src', html: '<a href="{{ user.title }}">a</a><img src="{{ user.title }}" width="1" height="1" alt="">', title: p },
        { context: 'user title in style', html: '<p style="color:red;{{ user.title }}">x</p>', title: p },
        { context: 'both: raw title inside a template attribute', html: `<a title="{{ user.title | raw }}" href="https://x.test">${p}</a>`, title: p },
      );
    }
    // Three classic cases: markup through the raw filter, through a user's field, and out of an attribute.
    cases.push(
      { context: 'issue: raw filter', html: '{{ "<script>alert(1)</script>" | raw }}', title: 'Engineer' },
      { context: 'issue: title', html: '{{ user.title | raw }}', title: '<img src=x onerror=alert(1)>' },
      {
        context: 'issue: raw in attribute',
        html: '<a title="{% raw %}{{ x" onmouseover="alert(1) }}{% endraw %}" href="https://x.test">a</a>',
        title: 'Engineer',
      },
    );

    const counts = { saved: 0, refused: 0, rendered: 0, previewed: 0 };
    const check = async (c: (typeof cases)[number]) => {
      const label = `${c.context}: ${c.html.slice(0, 120)} / ${c.title.slice(0, 80)}`;
      const user = await createUser(server, org, { title: c.title.slice(0, 200) });
      const saved = await seen(save(server, org, { name: 'xss', html: c.html, text: '{{ user.title }}' }));
      assert.ok(saved.status === 201 || saved.status === 400, `save ${label}: ${saved.status} ${saved.text}`);
      if (saved.data) {
        counts.saved++;
        const rendered = await seen(render(server, org, user.userId, saved.data.templateId));
        assert.equal(rendered.status, 200, `render ${label}: ${rendered.text}`);
        assertSafe(rendered.data?.html ?? '', `render ${label}`);
        counts.rendered++;
      } else counts.refused++;
      const previewed = await seen(preview(server, org, { userId: user.userId, html: c.html }));
      assert.ok(previewed.status === 200 || previewed.status === 400, `preview ${label}: ${previewed.status}`);
      if (previewed.data) {
        assertSafe(previewed.data.html, `preview ${label}`);
        counts.previewed++;
      }
    };
    // Six cases at a time: the table is long, and one at a time it neared the runner's timeout on a
    // loaded machine; the render pool still sees only a handful of requests at once.
    for (let i = 0; i < cases.length; i += 6) await Promise.all(cases.slice(i, i + 6).map(check));
    // Most payloads save and render (sanitized), so the table tests the sanitizer, not refusals.
    assert.ok(counts.rendered > cases.length * 0.8, JSON.stringify(counts));
    assert.ok(counts.previewed > cases.length * 0.8, JSON.stringify(counts));
  });

  test('what the sanitizer keeps: safe links, images, inline CSS fit for email', async () => {
    const user = await createUser(server, org, { title: 'color:#336699' });
    const t = await createTemplate(server, org, {
      html: '<table role="presentation"><tr><td style="font-family:Arial, sans-serif;font-size:13px;{{ user.title }}"><a href="mailto:{{ user.email }}">mail</a><img src="https://cdn.x.test/logo.png" width="80" height="20" alt="logo"></td></tr></table>',
    });
    const res = ok(await render(server, org, user.userId, t.templateId), 200);
    assert.match(res.html, /<td style="font-family:Arial, sans-serif;font-size:13px;color:#336699">/);
    assert.match(res.html, /<a href="mailto:user-[^"]+">mail<\/a><img src="https:\/\/cdn.x.test\/logo.png" width="80" height="20" alt="logo" \/>/);
  });
});
