// The design compiler, block by block and layout by layout, through the real template pipeline:
// what it writes must pass a template save unchanged (the render pool's compile: Liquid parses, the HTML
// allowlist keeps it) and render per user without stray labels when fields are empty.
import { after, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { compileDesign, type CompileContext } from './compile.ts';
import { htmlBlockText } from './html-text.ts';
import { designSchema, type Block, type Design } from './design.ts';
import { createRenderPool } from '../render/pool.ts';
import { resolveTrackMarks } from '../render/tracking.ts';

const LOGO = '11111111-1111-4111-8111-111111111111';
const BANNER = '22222222-2222-4222-8222-222222222222';
const ctx: CompileContext = {
  baseUrl: 'https://sig.example',
  images: new Map([
    [LOGO, { url: 'https://sig.example/v1/images/logo', width: 400, height: 100 }],
    [BANNER, { url: 'https://sig.example/v1/images/banner', width: 1200, height: 200 }],
  ]),
};

const style: Design['style'] = { fontFamily: 'georgia', fontSize: 13, textColor: '#222222', accentColor: '#aa3300', linkColor: '#0055aa' };
const design = (blocks: Block[], layout: Design['layout'] = 'stacked'): Design => ({ version: 1, layout, style, blocks });

const FULL = {
  user: {
    name: 'Ada Lovelace',
    title: 'Engineer',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    mobile: '+44 7700 900000',
    department: 'Research',
    pronouns: 'she/her',
    website: 'https://ada.example',
    address: '1 Main St\nLondon',
    photo_url: 'https://sig.example/v1/images/photo',
    social: { linkedin: 'https://linkedin.example/ada', github: 'https://github.example/ada' },
  },
  org: { name: 'Acme', website: 'https://acme.example', address: '', social: { x: 'https://x.example/acme' } },
  campaign: { banner: '', text: '' },
  pixel_url: 'https://sig.example/v1/p/00000000-0000-4000-8000-000000000000',
};
const EMPTY = {
  user: {
    name: 'Bo',
    title: '',
    email: 'bo@example.com',
    phone: '',
    mobile: '',
    department: '',
    pronouns: '',
    website: '',
    address: '',
    photo_url: '',
    social: {},
  },
  org: { name: 'Acme', website: '', address: '', social: {} },
  campaign: { banner: '', text: '' },
  pixel_url: FULL.pixel_url,
};

// In a render thread, as the service saves and renders: there Liquid's 100-ms limit counts the
// template's CPU time; on this thread it would be the wall clock's, which a loaded machine outlasts.
const pool = createRenderPool({ threads: 1 });
after(() => pool.close());

/** Saves the compiled template as the service does, then renders it for a person. */
async function render(d: Design, scope: object) {
  const compiled = compileDesign(designSchema.parse(d), ctx);
  const saved = await pool.compile({ orgId: 'test', html: compiled.html, text: compiled.text });
  const out = await pool.render({
    orgId: 'test',
    key: randomUUID(),
    htmlPrepared: saved.htmlPrepared,
    text: compiled.text,
    scope: scope as never,
    limitBytes: 30_720,
  });
  // Links go through `track`; here each mark becomes the user's tracked URL (a stand-in).
  const html = resolveTrackMarks(out.html, (d) => `https://sig.example/v1/c/[${d}]`);
  const text = resolveTrackMarks(out.text, (d) => `https://sig.example/v1/c/[${d}]`, false);
  return { compiled, saved, ...out, html, text };
}

const EVERY_BLOCK: Block[] = [
  { type: 'photo', shape: 'circle', size: 64 },
  { type: 'identity', show: ['name', 'pronouns', 'title', 'department'] },
  { type: 'contact', show: ['phone', 'mobile', 'email', 'website', 'address'] },
  { type: 'social', networks: ['linkedin', 'x', 'github'] },
  { type: 'logo', imageId: LOGO, width: 120, link: 'https://acme.example' },
  { type: 'divider' },
  { type: 'spacer', height: 8 },
  { type: 'button', label: 'Book a {demo}', link: 'https://acme.example/demo' },
  // A link Liquid could not hold as a string literal (`%`, braces): tracked all the same.
  { type: 'button', label: 'Search', link: 'https://acme.example/find?q=a%20b&x={y}' },
  { type: 'banner', imageId: BANNER, link: 'https://acme.example/launch', alt: 'Our launch' },
  { type: 'campaign' },
  { type: 'disclaimer', text: 'Confidential <b>{{ not liquid }}</b>\nSecond line' },
  { type: 'html', html: '<p style="margin:0">Hand-written for {{ user.name }}</p>' },
];

for (const layout of ['stacked', 'side-by-side', 'compact'] as const) {
  test(`${layout}: every block compiles into a template the save keeps as written, and renders every field`, async () => {
    const r = await render(design(EVERY_BLOCK, layout), FULL);
    assert.equal(r.saved.htmlPrepared, r.compiled.html, 'the save changes nothing the compiler wrote');
    assert.deepEqual(r.compiled.warnings, []);
    for (const shown of [
      'Ada Lovelace',
      'she/her',
      'Engineer',
      'Research',
      '+44 20 7946 0000',
      '+44 7700 900000',
      'mailto:ada@example.com',
      'https://ada.example',
      'https://linkedin.example/ada',
      'https://github.example/ada',
      'https://x.example/acme',
      'Our launch',
      'Hand-written for Ada Lovelace',
      'Book a {demo}',
      'Confidential &lt;b&gt;{{ not liquid }}&lt;/b&gt;<br />Second line',
    ]) {
      assert.ok(r.html.includes(shown), `${layout}: ${shown} in ${r.html}`);
    }
    assert.match(r.html, /1 Main St<br \/>\s*London/);
    assert.ok(r.html.includes('href="tel:+442079460000"'), 'a phone link without spaces');
    // Banner, button, logo and social links are tracked; contact links (tel:, mailto:, the website) are not.
    for (const link of ['https://linkedin.example/ada', 'https://x.example/acme', 'https://acme.example/demo', 'https://acme.example/find?q=a%20b&amp;x={y}']) {
      assert.ok(r.html.includes(`href="https://sig.example/v1/c/[${link}]"`), `${layout}: ${link} tracked`);
    }
    assert.ok(r.html.includes('href="https://ada.example"'), 'the website as it is');
    assert.match(r.text, /Ada Lovelace \(she\/her\)/);
    // The text part's links are tracked as the HTML's are.
    assert.ok(r.text.includes('Book a {demo}: https://sig.example/v1/c/[https://acme.example/demo]'), r.text);
    assert.ok(r.text.includes('LinkedIn: https://sig.example/v1/c/[https://linkedin.example/ada]'), r.text);
    assert.match(r.text, /Confidential <b>\{\{ not liquid \}\}<\/b>/, 'the text part shows the disclaimer as typed');
  });

  test(`${layout}: empty fields leave no label, separator or empty image behind`, async () => {
    const r = await render(design(EVERY_BLOCK, layout), EMPTY);
    assert.ok(r.html.includes('Bo'));
    const content = r.html.replace(/ style="[^"]*"/g, '');
    for (const absent of ['>T<', '>M<', '>W<', 'tel:', 'user.photo_url', 'v1/social/', ' | ', ', ', '()']) {
      assert.ok(!content.includes(absent), `${layout}: ${absent} in ${content}`);
    }
    assert.ok(!/\n\s*\n\s*\n/.test(r.text), `no run of blank lines: ${JSON.stringify(r.text)}`);
  });
}

test('email safety: tables, inline styles, sized images; none of what classic Outlook or Gmail drop', async () => {
  for (const layout of ['stacked', 'side-by-side', 'compact'] as const) {
    const { html } = compileDesign(
      design(
        EVERY_BLOCK.filter((b) => b.type !== 'html'),
        layout,
      ),
      ctx,
    );
    assert.ok(!/<(div|style|svg|p)\b/.test(html), 'layout by tables only');
    assert.ok(!/display:\s*(flex|grid)|position:|float:|background-image|url\(/.test(html), 'no CSS Outlook drops for layout');
    for (const img of html.match(/<img [^>]*>/g) ?? []) {
      assert.match(img, /width="\d+"/, img);
      assert.match(img, /height="\d+"/, img);
      assert.ok(!/margin/.test(img), img);
    }
    assert.ok(/role="presentation"/.test(html));
  }
});

test('images: drawn at most at half their pixel width, height kept in proportion; a small or unknown one is a warning', () => {
  const ok = compileDesign(design([{ type: 'logo', imageId: LOGO, width: 150 }]), ctx);
  assert.match(ok.html, /width="150" height="38"/);
  assert.deepEqual(ok.warnings, []);
  const blurry = compileDesign(design([{ type: 'logo', imageId: LOGO, width: 300 }]), ctx);
  assert.match(blurry.warnings.join(), /400 px wide and shown at 300 px: upload one of at least 600 px/);
  const missing = compileDesign(design([{ type: 'banner', imageId: '33333333-3333-4333-8333-333333333333', alt: 'x' }]), ctx);
  assert.match(missing.warnings.join(), /not one of the organisation's images/);
  assert.ok(!missing.html.includes('33333333'));
});

test('style: the font becomes an email-safe stack; size and colours reach the output', () => {
  const { html } = compileDesign({ ...design([{ type: 'identity', show: ['name'] }]), style: { ...style, fontFamily: 'trebuchet', fontSize: 15 } }, ctx);
  assert.match(html, /font-family:'Trebuchet MS', Helvetica, Arial, sans-serif;font-size:15px;line-height:20px;color:#222222/);
});

test('the schema refuses unknown block types and fields, naming them, and links a mail client would run', () => {
  const bad = (d: unknown) => designSchema.safeParse(d);
  const unknownType = bad({ ...design([]), blocks: [{ type: 'video' }] });
  assert.equal(unknownType.success, false);
  assert.deepEqual(unknownType.error!.issues[0]!.path, ['blocks', 0, 'type']);
  const unknownField = bad({ ...design([]), blocks: [{ type: 'divider', color: 'red' }] });
  assert.equal(unknownField.success, false);
  assert.match(JSON.stringify(unknownField.error!.issues), /color/);
  const script = bad(design([{ type: 'button', label: 'x', link: 'javascript:alert(1)' }]));
  assert.equal(script.success, false);
  assert.deepEqual(script.error!.issues[0]!.path, ['blocks', 0, 'link']);
  assert.equal(bad({ ...design([{ type: 'divider' }]), style: { ...style, fontSize: 30 } }).success, false);
  assert.equal(bad({ ...design([{ type: 'divider' }]), style: { ...style, textColor: 'red' } }).success, false);
  assert.equal(bad(design([{ type: 'identity', show: ['name', 'name'] }])).success, false);
});

test("an html block's plain-text line is its text content, Liquid kept, tags and attributes dropped", () => {
  assert.equal(
    htmlBlockText('<p style="margin:0">Hand-written for  {{ user.name }}</p><p>A &amp; B<br>next</p><a href="{{ org.website }}">Site</a>'),
    'Hand-written for {{ user.name }}\nA & B\nnext\nSite\n',
  );
  assert.equal(htmlBlockText('<img src="https://x.example/a.png" width="1" height="1" alt="" />'), '', 'no text, no line');
  const { text } = compileDesign(design([{ type: 'html', html: '<span style="font-weight:bold">{{ org.name }}</span>' }], 'stacked'), ctx);
  assert.match(text, /^\{\{ org\.name \}\}$/m, 'the text template shows what the HTML one does');
});
