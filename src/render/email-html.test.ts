import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAPS, checkStructure, prepareTemplateHtml, renderWarnings, sanitizeRendered, TemplateRefused } from './email-html.ts';
import { shieldLiquid } from '../lib/liquid-shield.ts';

test('rendered output: URL attributes with unsafe schemes are dropped, however they are spelled', () => {
  const bad = ['javascript:alert(1)', '&#106;avascript:x', ' JaVaScRiPt:x', 'java&#x09;script:x', 'vbscript:x', 'data:text/html;base64,xx'];
  for (const v of bad) assert.equal(sanitizeRendered(`<a href="${v}">x</a>`).html, '<a>x</a>', v);
  assert.equal(sanitizeRendered("<img src='javascript:x'>").html, '<img />');
  for (const ok of ['https://example.com/a?b=1&amp;c=2', 'mailto:a@b.c', 'tel:+441234', '/relative', '#top']) {
    assert.equal(sanitizeRendered(`<a href="${ok}">x</a>`).html, `<a href="${ok}">x</a>`, ok);
  }
  assert.equal(sanitizeRendered('<a title="javascript:x">x</a>').html, '<a title="javascript:x">x</a>', 'only URL attributes');
});

test('rendered output: markup from raw values is sanitized like the template', () => {
  assert.equal(sanitizeRendered('<p>a<script>alert(1)</script><img src=x onerror="alert(1)"></p>').html, '<p>a<img src="x" /></p>');
  assert.equal(sanitizeRendered('<a title="{{ x" onmouseover="alert(1) }}" href="https://x.test">a</a>').html, '<a title="{{ x" href="https://x.test">a</a>');
  const { html, removedDataImage } = sanitizeRendered('<img src="data:image/png;base64,AAAA" width="1" height="1">');
  assert.equal(html, '<img width="1" height="1" />');
  assert.equal(removedDataImage, true);
});

test('style attributes keep email-safe CSS properties and values only', () => {
  const style = (css: string) => /style="([^"]*)"/.exec(sanitizeRendered(`<p style="${css}">x</p>`).html)?.[1] ?? '';
  assert.equal(style('color:#c00;font-family:Arial, sans-serif;padding:0 4px'), 'color:#c00;font-family:Arial, sans-serif;padding:0 4px');
  assert.equal(style('color:rgb(10, 20, 30)'), 'color:rgb(10, 20, 30)');
  for (const bad of [
    'background-image:url(javascript:alert(1))',
    'background:url(https://x.test/a.png)',
    'width:expression(alert(1))',
    'behavior:url(x.htc)',
    '-moz-binding:url(http://x.test/x.xml#x)',
    'position:fixed;top:0;left:0',
    'z-index:9999',
    'color:red\\;background:url(x)',
    'font-family:&quot;x&quot;;background-image:url(&#106;avascript:x)',
  ]) {
    assert.ok(!/url|expression|behavior|binding|position|z-index|\\/.test(style(bad)), `${bad} → ${style(bad)}`);
  }
});

test('templates: CSS inlined, dangerous markup dropped, Liquid kept intact even inside attributes', () => {
  const out = prepareTemplateHtml(
    '<style>td{color:red}</style><table><tr>{% for i in (1..2) %}<td onclick="x()" title="{{ user.name }}" style="color: {{ user.title }}">{{ i }}</td>{% endfor %}</tr></table><script>x</script><a href="javascript:x">a</a>',
  );
  assert.equal(
    out,
    '<table><tr>{% for i in (1..2) %}<td title="{{ user.name }}" style="color: {{ user.title }};">{{ i }}</td>{% endfor %}</tr></table><a>a</a>',
  );
});

test('Liquid shielding is linear: unclosed delimiters do not rescan the input', () => {
  const hostile = `{% raw %}${'{'.repeat(99_970)}{% endraw %}`;
  const { html, parts } = shieldLiquid(hostile);
  assert.deepEqual(parts, ['{% raw %}', '{% endraw %}']);
  assert.equal(html.length, 99_970 + 2 * '\u2063LQ0\u2063'.length);
  assert.deepEqual(shieldLiquid('a {{ b }} {% c %} {{ d').parts, ['{{ b }}', '{% c %}']);
  assert.deepEqual(shieldLiquid('{% a {{ b }} %}').parts, ['{% a {{ b }} %}']);
});

test('caps: nesting depth, elements, CSS selectors, and CSS work refused before juice runs', () => {
  const refused = (html: string, pattern: RegExp) =>
    assert.throws(
      () => checkStructure(html),
      (e) => e instanceof TemplateRefused && pattern.test(e.message),
    );
  refused('<div>'.repeat(16_000), /levels deep/);
  checkStructure(`${'<div>'.repeat(CAPS.depth)}x${'</div>'.repeat(CAPS.depth)}`);
  refused('<b>x</b>'.repeat(CAPS.elements + 1), /elements/);
  refused(`<style>${Array.from({ length: 2000 }, (_, i) => `.c${i}{color:red}`).join('')}</style>`, /selectors/);
  refused(`<style>${Array.from({ length: 250 }, (_, i) => `.a${i}`).join(',')}{color:red}</style>`, /selectors/);
  refused(`<style>p{${'color:red;'.repeat(1000)}}</style>${'<p>x</p>'.repeat(300)}`, /too much CSS/);
  checkStructure(`<style>td{font-family:Arial,sans-serif;font-size:13px}</style>${'<table><tr><td>x</td></tr></table>'.repeat(50)}`);
});

test('warnings: Gmail length, images without sizes', () => {
  assert.equal(renderWarnings('<p>x</p>').length, 0);
  assert.match(renderWarnings(`<p>${'x'.repeat(10_001)}</p>`)[0] ?? '', /10,000/);
  assert.match(renderWarnings('<img src="https://x/y.png">')[0] ?? '', /width and height/);
  assert.equal(renderWarnings('<img src="https://x/y.png" width="10" height="10">').length, 0);
});
