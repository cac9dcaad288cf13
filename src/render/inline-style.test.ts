import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterInlineStyle } from './inline-style.ts';
import { sanitizeRendered } from './email-html.ts';

test('style filter: allowlisted declarations are kept, in order, normalised', () => {
  assert.equal(filterInlineStyle('color:#c00;font-family:Arial, sans-serif;padding:0 4px'), 'color:#c00;font-family:Arial, sans-serif;padding:0 4px');
  assert.equal(filterInlineStyle('\n  color :\t red ;\n\n font-size: 13px \n'), 'color:red;font-size:13px', 'whitespace and newlines around parts');
  assert.equal(filterInlineStyle('COLOR:RED;Font-Size:13PX'), 'color:RED;font-size:13PX', 'property names are case-insensitive');
  assert.equal(filterInlineStyle('color:red !important'), 'color:red !important');
  assert.equal(filterInlineStyle('font-family:"Helvetica Neue", \'Segoe UI\', Arial'), 'font-family:"Helvetica Neue", \'Segoe UI\', Arial');
  assert.equal(filterInlineStyle("font-family:'a\"b'"), "font-family:'a\"b'", 'the other quote inside a string');
  assert.equal(
    filterInlineStyle('color:rgba(10, 20, 30, 0.5);background-color:hsl(0 50% 50% / 40%)'),
    'color:rgba(10, 20, 30, 0.5);background-color:hsl(0 50% 50% / 40%)',
  );
  for (const empty of ['', ';;;', ':', 'color:', ':red', 'color', ' ; color ; ']) assert.equal(filterInlineStyle(empty), '', JSON.stringify(empty));
});

test('style filter: properties off the list and unsafe values are dropped, the rest kept', () => {
  const cases: [string, string][] = [
    ['position:fixed;top:0;left:0;color:red', 'color:red'],
    ['Position:Fixed;z-index:9999', ''],
    ['BACKGROUND-IMAGE:URL(javascript:alert(1));color:red', 'color:red'],
    ['WIDTH:EXPRESSION(alert(1));width:10px', 'width:10px'],
    ['behavior:url(x.htc);-moz-binding:url(http://x.test/x.xml#x)', ''],
    ['background:url(https://x.test/a.png);background-color:#fff', 'background-color:#fff'],
    ['color:var(--x);color:attr(title);font-family:x', 'font-family:x'],
    ['color:red<script>', ''],
    ['color:red;color:blue', 'color:red;color:blue'],
  ];
  for (const [input, kept] of cases) assert.equal(filterInlineStyle(input), kept, input);
});

test('style filter: comments, escapes, quotes and parentheses cannot smuggle a declaration', () => {
  const cases: [string, string][] = [
    // Comments: a declaration holding one is dropped whole (`*` is no safe value).
    ['color:red/**/;background-image:url(x)', ''],
    ['color:/*x*/red;width:1px', 'width:1px'],
    ['/**/color:red', ''],
    ['color:red/*;*/;position:fixed', ''],
    ['width:1px/*;background:url(x)*/', ''],
    // Escapes: `\` escapes the next character (so `\;` does not end a declaration) and is never kept.
    ['color:red\\;background:url(x)', ''],
    ['color:red\\;width:1px;height:2px', 'height:2px'],
    ['\\62 ackground:url(x);color:red', 'color:red'],
    ['col\\or:red', ''],
    ['color:\\72 ed', ''],
    ['color:red\\', ''],
    // `;` inside quotes or parentheses does not split; such a value is dropped.
    ["font-family:'a;b';color:red", 'color:red'],
    ['font-family:"a;position:fixed";color:red', 'color:red'],
    ['background:url(a;b);color:red', 'color:red'],
    ['color:rgb(1;2;3);width:1px', 'width:1px'],
    // Unclosed quotes and parentheses run to the end: everything from them on is dropped.
    ['color:red;font-family:"x;position:fixed', 'color:red'],
    ["color:red;font-family:'x", 'color:red'],
    ['color:red;width:calc(1px;position:fixed', 'color:red'],
    ['color:red;font-family:a"b', 'color:red'],
    // A stray closing parenthesis or quote in the middle of a value.
    ['color:red);width:1px', 'width:1px'],
    ['font-family:"a"b";color:red', ''],
  ];
  for (const [input, kept] of cases) assert.equal(filterInlineStyle(input), kept, input);
});

test('style filter: linear on hostile input', () => {
  // Generous bounds: a quadratic scan of these would take minutes.
  for (const hostile of [
    '('.repeat(200_000),
    '"'.repeat(200_001),
    '\\'.repeat(200_001),
    `color:${'a;'.repeat(100_000)}`,
    `font-family:${"'a',".repeat(50_000)}x`,
  ]) {
    const started = performance.now();
    filterInlineStyle(hostile);
    assert.ok(performance.now() - started < 2_000, `${hostile.slice(0, 20)}…`);
  }
});

test('rendered style attributes: filtered after entities are decoded, escaped again on output', () => {
  const styleOf = (attribute: string) => sanitizeRendered(`<p style="${attribute}">x</p>`).html;
  assert.equal(styleOf('color:red&#59;background-image:url(x)'), '<p style="color:red">x</p>', 'an entity-encoded ;');
  assert.equal(styleOf('background-image:&#117;rl(x)'), '<p>x</p>', 'an entity-encoded url(');
  assert.equal(styleOf('color:&#x72;ed'), '<p style="color:red">x</p>');
  assert.equal(styleOf('font-family:&quot;Arial&quot;, sans-serif'), '<p style="font-family:&quot;Arial&quot;, sans-serif">x</p>');
  assert.equal(styleOf('font-family:&quot;x&quot; onmouseover=&quot;alert(1)'), '<p>x</p>');
  assert.equal(styleOf('position:fixed'), '<p>x</p>', 'nothing left: the attribute goes');
  assert.equal(sanitizeRendered("<p style='color:red' STYLE='position:fixed'>x</p>").html, '<p style="color:red">x</p>');
  assert.equal(sanitizeRendered('<script style="color:red">x</script><td style="color:red;z-index:1">y</td>').html, '<td style="color:red">y</td>');
});
