import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareTemplateHtml, renderWarnings, sanitizeRendered } from './email-html.ts';

test('rendered output: URL attributes with unsafe schemes are neutralised, however they are spelled', () => {
  const bad = ['javascript:alert(1)', '&#106;avascript:x', ' JaVaScRiPt:x', 'java&#x09;script:x', 'vbscript:x', 'data:text/html;base64,xx'];
  for (const v of bad) assert.equal(sanitizeRendered(`<a href="${v}">x</a>`), '<a href="#">x</a>', v);
  assert.equal(sanitizeRendered("<img src='javascript:x'>"), '<img src="#">');
  for (const ok of ['https://example.com/a?b=1&amp;c=2', 'mailto:a@b.c', 'tel:+441234', '/relative', '#top']) {
    assert.equal(sanitizeRendered(`<a href="${ok}">x</a>`), `<a href="${ok}">x</a>`, ok);
  }
  assert.equal(sanitizeRendered('<a title="javascript:x">x</a>'), '<a title="javascript:x">x</a>', 'only URL attributes');
});

test('templates: CSS inlined, dangerous markup dropped, Liquid kept intact even inside attributes', () => {
  const out = prepareTemplateHtml('<style>td{color:red}</style><table><tr>{% for i in (1..2) %}<td onclick="x()" title="{{ user.name }}">{{ i }}</td>{% endfor %}</tr></table><script>x</script><a href="javascript:x">a</a>');
  assert.equal(out, '<table><tr>{% for i in (1..2) %}<td title="{{ user.name }}" style="color:red">{{ i }}</td>{% endfor %}</tr></table><a>a</a>');
});

test('warnings: Gmail length, images without sizes', () => {
  assert.equal(renderWarnings('<p>x</p>').length, 0);
  assert.match(renderWarnings(`<p>${'x'.repeat(10_001)}</p>`)[0] ?? '', /10,000/);
  assert.match(renderWarnings('<img src="https://x/y.png">')[0] ?? '', /width and height/);
  assert.equal(renderWarnings('<img src="https://x/y.png" width="10" height="10">').length, 0);
});
