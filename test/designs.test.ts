import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg, uploadPng } from './helpers/fixtures.ts';
import { png } from './helpers/images.ts';
import { compileDesign } from '../src/designer/compile.ts';
import type { Design } from '../src/designer/design.ts';

// Templates described as designs (DECISIONS wave 3, "Design"): saved compiled, `source` switching
// between the design and hand-written html, the compile route for previews, and 400s naming the
// design's field.
const style: Design['style'] = { fontFamily: 'georgia', fontSize: 13, textColor: '#222222', accentColor: '#aa3300', linkColor: '#0055aa' };
const DESIGN: Design = {
  version: 1,
  layout: 'stacked',
  style,
  blocks: [
    { type: 'identity', show: ['name', 'pronouns', 'title'] },
    { type: 'contact', show: ['email', 'phone', 'website'] },
    { type: 'social', networks: ['linkedin', 'github'] },
  ],
};

describe('templates with designs', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  const base = () => `/v1/orgs/${org.orgId}`;
  const req = (method: string, path: string, body?: unknown) =>
    server.request(method, `${base()}${path}`, { key: org.key, ...(body !== undefined ? { body } : {}) });
  const baseUrl = () => server.deps.config.baseUrl.replace(/\/$/, '');
  const uploadImage = (width: number, height: number) => uploadPng(server, org, width, height);

  test('POST with a design saves the compiled html and text, answers source "design" and the design; GET answers them; it renders per user', async () => {
    const created = await req('POST', '/templates', { name: 'Designed', design: DESIGN, isDefault: false });
    assert.equal(created.status, 201, created.text);
    const expected = compileDesign(DESIGN, { baseUrl: baseUrl(), images: new Map() });
    assert.equal(created.body.source, 'design');
    assert.deepEqual(created.body.design, DESIGN);
    assert.equal(created.body.html, expected.html);
    assert.equal(created.body.text, expected.text);
    assert.deepEqual(created.body.warnings, []);
    const read = await req('GET', `/templates/${created.body.templateId}`);
    assert.equal(read.body.source, 'design');
    assert.deepEqual(read.body.design, DESIGN);
    const listed = await req('GET', '/templates');
    assert.ok(listed.body.items.some((t: { templateId: string; source: string }) => t.templateId === created.body.templateId && t.source === 'design'));
    const user = await createUser(server, org, { name: 'Grace Hopper', pronouns: 'she/her', social: { github: 'https://github.com/grace' } });
    const out = await req('POST', `/render/${user.userId}`, { templateId: created.body.templateId });
    assert.equal(out.status, 200, out.text);
    assert.match(out.body.html, /Grace Hopper/);
    assert.match(out.body.html, /she\/her/);
    assert.ok(out.body.html.includes(`${baseUrl()}/v1/social/github.png`), 'the hosted icon');
    // The social link goes through the click route (tracked links), which leads to the user's profile.
    const tracked = /href="([^"]*\/v1\/c\/[^"]+)"/.exec(out.body.html)?.[1];
    assert.ok(tracked, out.body.html);
    const followed = await fetch(tracked.replaceAll('&amp;', '&'), { redirect: 'manual' });
    assert.equal(followed.status, 302);
    assert.equal(followed.headers.get('location'), 'https://github.com/grace');
    assert.doesNotMatch(out.body.html, /linkedin\.png/, 'a network without a link is left out');
  });

  test('a hand edit makes source "html" and keeps the design as history; PATCH {design} switches back', async () => {
    const created = (await req('POST', '/templates', { name: 'Switch', design: DESIGN, isDefault: false })).body;
    const hand = await req('PATCH', `/templates/${created.templateId}`, { version: created.version, html: '<p>{{ user.name }} by hand</p>' });
    assert.equal(hand.status, 200, hand.text);
    assert.equal(hand.body.source, 'html');
    assert.equal(hand.body.html, '<p>{{ user.name }} by hand</p>');
    assert.equal(hand.body.text, created.text, 'the text stays as it was');
    assert.deepEqual(hand.body.design, DESIGN, 'the last design, as history');
    const textOnly = await req('PATCH', `/templates/${created.templateId}`, { version: hand.body.version, name: 'Renamed' });
    assert.equal(textOnly.body.source, 'html', 'a rename changes no source');
    const compact: Design = { ...DESIGN, layout: 'compact' };
    const back = await req('PATCH', `/templates/${created.templateId}`, { version: textOnly.body.version, design: compact });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.source, 'design');
    assert.deepEqual(back.body.design, compact);
    assert.equal(back.body.html, compileDesign(compact, { baseUrl: baseUrl(), images: new Map() }).html);
  });

  test("logo and banner blocks use the org's live images; another org's or a missing image is a warning and no image", async () => {
    const logo = await uploadImage(400, 100);
    const design: Design = {
      ...DESIGN,
      blocks: [
        ...DESIGN.blocks,
        { type: 'logo', imageId: logo, width: 120, link: 'https://acme.example' },
        { type: 'banner', imageId: crypto.randomUUID(), alt: 'Launch' },
      ],
    };
    const created = await req('POST', '/templates', { name: 'Images', design, isDefault: false });
    assert.equal(created.status, 201, created.text);
    assert.ok(created.body.html.includes(`src="${baseUrl()}/v1/images/${logo}" width="120" height="30"`), created.body.html);
    assert.equal(created.body.warnings.length, 1, JSON.stringify(created.body.warnings));
    assert.match(created.body.warnings[0], /banner image .* not one of the organisation's images/);
    const other = await createOrg(server);
    const foreign = await fetch(`${server.url}/v1/orgs/${other.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': other.key, 'content-type': 'image/png' },
      body: png(400, 100),
    });
    const foreignId = ((await foreign.json()) as { imageId: string }).imageId;
    const borrowed = await req('POST', '/templates/compile', { design: { ...DESIGN, blocks: [{ type: 'logo', imageId: foreignId, width: 100 }] } });
    assert.equal(borrowed.status, 200);
    assert.doesNotMatch(borrowed.body.html, new RegExp(foreignId));
    assert.match(borrowed.body.warnings[0], /not one of the organisation's images/);
  });

  test('POST …/templates/compile answers html, text and every warning, and saves nothing', async () => {
    const before = (await req('GET', '/templates?limit=200')).body.items.length;
    const auditBefore = (await req('GET', '/audit?limit=200')).body.items.length;
    const design: Design = { ...DESIGN, blocks: [...DESIGN.blocks, { type: 'html', html: '<div style="display:flex">{{ user.name }}</div>' }] };
    const res = await req('POST', '/templates/compile', { design });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['html', 'text', 'warnings']);
    assert.equal(res.body.html, compileDesign(design, { baseUrl: baseUrl(), images: new Map() }).html);
    assert.ok(
      res.body.warnings.some((w: string) => /flex/i.test(w)),
      `a client-support warning: ${JSON.stringify(res.body.warnings)}`,
    );
    assert.equal((await req('GET', '/templates?limit=200')).body.items.length, before, 'no template saved');
    assert.equal((await req('GET', '/audit?limit=200')).body.items.length, auditBefore, 'nothing audited');
  });

  test("a design over Gmail's 10,000 characters warns on compile and on save, as its render does", async () => {
    const long: Design = { ...DESIGN, blocks: Array.from({ length: 8 }, () => ({ type: 'disclaimer' as const, text: 'lorem ipsum '.repeat(160).trim() })) };
    const gmail = (warnings: string[]) => warnings.filter((w) => /Gmail refuses signatures over 10,000/.test(w));
    const compiled = await req('POST', '/templates/compile', { design: long });
    assert.equal(compiled.status, 200, compiled.text);
    assert.equal(gmail(compiled.body.warnings).length, 1, JSON.stringify(compiled.body.warnings));
    const saved = await req('POST', '/templates', { name: 'Long', design: long, isDefault: false });
    assert.equal(saved.status, 201, saved.text);
    assert.equal(gmail(saved.body.warnings).length, 1, JSON.stringify(saved.body.warnings));
    const patched = await req('PATCH', `/templates/${saved.body.templateId}`, { version: saved.body.version, design: { ...long, layout: 'compact' } });
    assert.equal(gmail(patched.body.warnings).length, 1, JSON.stringify(patched.body.warnings));
    const user = await createUser(server, org, { name: 'Long Signature' });
    const rendered = await req('POST', `/render/${user.userId}`, { templateId: saved.body.templateId });
    assert.equal(gmail(rendered.body.warnings).length, 1, 'the render warns too');
    const short = await req('POST', '/templates/compile', { design: DESIGN });
    assert.deepEqual(gmail(short.body.warnings), [], 'a short one does not');
  });

  test("an html block's plain text is its text content only: no CSS or script, Liquid kept intact (even with < or > in it)", async () => {
    const html =
      '<style>p { color: red } .x{font-weight:bold}</style><p class="x">Hi</p><script>var secret=1</script>' +
      "<p>{{ '<b>' }}</p><p>{% if user.name > '' %}Named{% endif %}</p><style>{% if user.title != blank %}.y{}{% endif %}</style>";
    const design: Design = { ...DESIGN, blocks: [{ type: 'html', html }] };
    const compiled = await req('POST', '/templates/compile', { design });
    assert.equal(compiled.status, 200, compiled.text);
    assert.equal(compiled.body.text, "Hi\n{{ '<b>' }}\n{% if user.name > '' %}Named{% endif %}\n{% if user.title != blank %}{% endif %}");
    const saved = await req('POST', '/templates', { name: 'Html text', design, isDefault: false });
    assert.equal(saved.status, 201, saved.text);
    const user = await createUser(server, org, { name: 'Text Reader' });
    const out = await req('POST', `/render/${user.userId}`, { templateId: saved.body.templateId });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.body.text.trim(), 'Hi\n<b>\nNamed');
  });

  test("typed text that reaches an attribute (a banner's alt, a mail link) is shown as typed in the HTML and the text, never run as Liquid", async () => {
    const banner = await uploadImage(1200, 200);
    const design: Design = {
      ...DESIGN,
      blocks: [
        { type: 'banner', imageId: banner, alt: 'A {{ user.email }} $&' },
        { type: 'button', label: 'Write', link: 'mailto:{{user.email}}' },
      ],
    };
    const saved = await req('POST', '/templates', { name: 'Typed', design, isDefault: false });
    assert.equal(saved.status, 201, saved.text);
    const user = await createUser(server, org, { name: 'Alt Reader', email: `alt-${crypto.randomUUID()}@example.com` });
    const out = await req('POST', `/render/${user.userId}`, { templateId: saved.body.templateId });
    assert.equal(out.status, 200, out.text);
    assert.ok(out.body.html.includes('alt="A {{ user.email }} $&amp;"'), out.body.html);
    assert.ok(out.body.html.includes('href="mailto:{{user.email}}"'), out.body.html);
    assert.ok(!out.body.html.includes(user.email), 'no Liquid of the design ran on the user');
    assert.match(out.body.text, /^A \{\{ user\.email \}\} \$&$/m);
    assert.match(out.body.text, /^Write: mailto:\{\{user\.email\}\}$/m);
  });

  test('fontSize is a number of px from 11 to 16 (DECISIONS), not only a whole one; outside that range a 400 naming it', async () => {
    const blocks: Design['blocks'] = [
      { type: 'identity', show: ['name'] },
      { type: 'disclaimer', text: 'Small print' },
    ];
    const half: Design = { ...DESIGN, style: { ...style, fontSize: 13.5 }, blocks };
    const saved = await req('POST', '/templates', { name: 'Half size', design: half, isDefault: false });
    assert.equal(saved.status, 201, saved.text);
    assert.equal(saved.body.design.style.fontSize, 13.5);
    assert.match(saved.body.html, /font-size:13\.5px;line-height:18\.5px/);
    for (const fontSize of [12.1, 15.7]) {
      const res = await req('POST', '/templates/compile', { design: { ...half, style: { ...style, fontSize } } });
      assert.equal(res.status, 200, res.text);
      for (const [size] of res.body.html.matchAll(/(?:font-size|line-height):[^;"]*/g)) assert.match(size, /:\d+(\.\d{1,2})?px$/, 'no float noise in CSS');
    }
    for (const fontSize of [10.5, 16.5, '13']) {
      const res = await req('POST', '/templates/compile', { design: { ...half, style: { ...style, fontSize } } });
      assert.equal(res.status, 400, `${fontSize}: ${res.text}`);
      assert.equal(res.body.error.details.field, 'body.design.style.fontSize');
    }
  });

  test('bad designs: 400 naming the field (unknown block type or field, a value out of range), both or neither source; nothing saved', async () => {
    const before = (await req('GET', '/templates?limit=200')).body.items.length;
    const cases: [unknown, string][] = [
      [{ ...DESIGN, blocks: [{ type: 'marquee' }] }, 'body.design.blocks.0.type'],
      [{ ...DESIGN, blocks: [{ type: 'divider', colour: 'red' }] }, 'body.design.blocks.0.colour'],
      [{ ...DESIGN, blocks: [{ type: 'spacer', height: 2 }] }, 'body.design.blocks.0.height'],
      [{ ...DESIGN, style: { ...style, textColor: 'red' } }, 'body.design.style.textColor'],
      [{ ...DESIGN, shadow: true }, 'body.design.shadow'],
      [{ ...DESIGN, blocks: [{ type: 'button', label: 'Go', link: 'javascript:alert(1)' }] }, 'body.design.blocks.0.link'],
      // What the click tracker refuses (control characters), the design refuses too: its links render tracked.
      [{ ...DESIGN, blocks: [{ type: 'button', label: 'Go', link: 'https://evil.test/\u0001x' }] }, 'body.design.blocks.0.link'],
      [{ ...DESIGN, blocks: [{ type: 'button', label: 'Go', link: 'https://\u007f.test/' }] }, 'body.design.blocks.0.link'],
      [{ ...DESIGN, blocks: [{ type: 'logo', imageId: crypto.randomUUID(), width: 100, link: 'https://a.test/\u0085' }] }, 'body.design.blocks.0.link'],
      [{ ...DESIGN, blocks: [{ type: 'button', label: 'Mail', link: 'mailto:a\u001b@b.test' }] }, 'body.design.blocks.0.link'],
      [{ ...DESIGN, blocks: [{ type: 'html', html: '{% if %}' }] }, 'body.design'],
    ];
    for (const [design, field] of cases) {
      for (const path of ['/templates', '/templates/compile']) {
        const res = await req('POST', path, path === '/templates' ? { name: 'Bad', design } : { design });
        assert.equal(res.status, 400, `${path} ${JSON.stringify(design)}: ${res.text}`);
        assert.equal(res.body.error.details.field, field, `${path}: ${res.text}`);
      }
    }
    const both = await req('POST', '/templates', { name: 'Both', design: DESIGN, html: '<p>x</p>' });
    assert.equal(both.status, 400);
    assert.equal(both.body.error.details.field, 'body.html');
    const neither = await req('POST', '/templates', { name: 'Neither' });
    assert.equal(neither.body.error.details.field, 'body.html');
    const existing = (await req('POST', '/templates', { name: 'Patch', design: DESIGN, isDefault: false })).body;
    const patchBoth = await req('PATCH', `/templates/${existing.templateId}`, { version: existing.version, design: DESIGN, text: 'x' });
    assert.equal(patchBoth.body.error.details.field, 'body.text');
    assert.equal((await req('GET', '/templates?limit=200')).body.items.length, before + 1, 'only the valid one saved');
  });

  test('a NUL or a lone surrogate in any string of a design is a 400 naming the field (POST, PATCH, compile); nothing saved', async () => {
    const existing = (await req('POST', '/templates', { name: 'Unchanged', design: DESIGN, isDefault: false })).body;
    const before = (await req('GET', '/templates?limit=200')).body.items.length;
    const image = crypto.randomUUID();
    const cases: [unknown, string][] = [
      [{ type: 'disclaimer', text: 'a\u0000b' }, 'body.design.blocks.0.text'],
      [{ type: 'disclaimer', text: 'a\ud800b' }, 'body.design.blocks.0.text'],
      [{ type: 'html', html: '<b>a\u0000</b>' }, 'body.design.blocks.0.html'],
      [{ type: 'html', html: '<b>\udfffa</b>' }, 'body.design.blocks.0.html'],
      [{ type: 'button', label: 'Go\u0000', link: 'https://a.b' }, 'body.design.blocks.0.label'],
      [{ type: 'button', label: 'Go', link: 'https://a.b\u0000' }, 'body.design.blocks.0.link'],
      [{ type: 'banner', imageId: image, alt: 'Launch\u0000' }, 'body.design.blocks.0.alt'],
      [{ type: 'logo', imageId: image, width: 100, link: 'mailto:a@b.c\ud800' }, 'body.design.blocks.0.link'],
    ];
    for (const [block, field] of cases) {
      const design = { ...DESIGN, blocks: [block] };
      const answers = [
        await req('POST', '/templates', { name: 'Bad', design }),
        await req('PATCH', `/templates/${existing.templateId}`, { version: existing.version, design }),
        await req('POST', '/templates/compile', { design }),
      ];
      for (const res of answers) {
        assert.equal(res.status, 400, `${JSON.stringify(block)}: ${res.text}`);
        assert.equal(res.body.error.details.field, field, res.text);
        assert.match(res.body.error.message, /NUL \(U\+0000\) or unpaired surrogate/, res.text);
      }
    }
    assert.equal((await req('GET', '/templates?limit=200')).body.items.length, before, 'nothing saved');
    const read = await req('GET', `/templates/${existing.templateId}`);
    assert.equal(read.body.version, existing.version, 'nothing changed');
  });
});
