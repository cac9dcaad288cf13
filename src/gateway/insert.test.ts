import { test } from 'node:test';
import assert from 'node:assert/strict';
import { htmlQuoteStart, insertHtml, insertText, textQuoteStart } from './insert.ts';

const SIG = '<div>SIG</div>';

test('HTML: before the earliest quote marker of each client', () => {
  assert.equal(
    insertHtml('<p>Hi</p><div id="appendonsend"></div><div id="divRplyFwdMsg">q</div>', SIG),
    `<p>Hi</p>${SIG}<div id="appendonsend"></div><div id="divRplyFwdMsg">q</div>`,
  );
  assert.equal(
    insertHtml('<p>Hi</p><div class="gmail_quote gmail_quote_container">q</div>', SIG),
    `<p>Hi</p>${SIG}<div class="gmail_quote gmail_quote_container">q</div>`,
  );
  assert.equal(
    insertHtml('<p>Hi</p><div class="moz-cite-prefix">On x wrote:</div><blockquote type="cite">q</blockquote>', SIG),
    `<p>Hi</p>${SIG}<div class="moz-cite-prefix">On x wrote:</div><blockquote type="cite">q</blockquote>`,
  );
});

test('HTML: the attribution line directly before a cited blockquote goes with the quote', () => {
  const html = '<p>Hi</p><div><br><div>On 24 Nov 2026, at 09:00, Grace wrote:</div><br><blockquote type="cite">q</blockquote></div>';
  assert.equal(htmlQuoteStart(html), html.indexOf('<div>On 24'));
  const plain = '<p>Hi</p><div>Thanks a lot</div><blockquote type="cite">q</blockquote>';
  assert.equal(htmlQuoteStart(plain), plain.indexOf('<blockquote'), 'a line that is no attribution stays above');
});

test('HTML: no quote: before the last </body>, else at the end', () => {
  assert.equal(insertHtml('<html><body><p>Hi</p></body></html>', SIG), `<html><body><p>Hi</p>${SIG}</body></html>`);
  assert.equal(insertHtml('<p>Hi</p>', SIG), `<p>Hi</p>${SIG}`);
});

test('text: before the first quoted line, keeping the line ends', () => {
  assert.equal(insertText('Hi\r\n\r\nOn Tue, Grace wrote:\r\n> q\r\n', 'Ada\nEngineer'), 'Hi\r\n\r\nAda\r\nEngineer\r\n\r\nOn Tue, Grace wrote:\r\n> q\r\n');
  assert.equal(textQuoteStart('Hi\n-----Original Message-----\nFrom: x'), 3);
  assert.equal(textQuoteStart('Hi\n\nFrom: Grace\nSent: x'), 4);
  assert.equal(textQuoteStart('From: is how it starts\nno quote'), -1, 'From: on the first line is the body itself');
  assert.equal(textQuoteStart('Hi\n> quoted'), 3);
  assert.equal(textQuoteStart('Hi\n______________________________\nFrom: Grace'), 3);
});

test('text: no quote: at the end, after a blank line, the trailing newline kept', () => {
  assert.equal(insertText('Hi\n', 'Ada'), 'Hi\n\nAda\n');
  assert.equal(insertText('Hi', 'Ada'), 'Hi\n\nAda\n');
  assert.equal(insertText('', 'Ada'), 'Ada\n');
});

test('hostile HTML and text of 2 MB are read in one pass: tags that never close, markers by the thousand, runs of line breaks', () => {
  const size = 2 * 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
  const quote = '<div id="divRplyFwdMsg">q</div>';
  // Each held the event loop for hours at this size when a pattern was tried from every `<` or every position.
  const cases: [string, string, number][] = [
    ['unclosed tags, then the word', `${fill('<a ')}divRplyFwdMsg`, -1],
    ['unclosed tags, then a marker', `${fill('<a ')}${quote}`, size + 2],
    ['unquoted classes', `${fill('<a class=x ')}moz-cite-prefix`, -1],
    ['unclosed quotes', `${fill('<a class="x ')}>gmail_quote`, -1],
    ['blockquotes without a type', `${fill('<blockquote ')}>type=cite`, -1],
    ['one endless tag full of markers', `<a ${fill('id=divRplyFwdMsgX class=gmail_quoteX ')}`, -1],
    ['every tag a near miss', `${fill('<p title="divRplyFwdMsg appendonsend gmail_quote">x</p>')}${quote}`, -2],
    ['equals signs without values', `${fill('<a x= ')}appendonsend`, -1],
  ];
  for (const [name, html, expected] of cases) {
    const at = htmlQuoteStart(html);
    if (expected === -2) assert.equal(at, html.length - quote.length, name);
    else if (expected === -1) assert.equal(at, -1, name);
    else assert.equal(html.slice(at, at + quote.length), quote, name);
  }
  assert.equal(insertText(`Hi${'\r\n'.repeat(size / 2)}`, 'Ada').length, 2 + 4 + 3 + size);
  assert.equal(insertText(`${'\n'.repeat(size)}x`, 'Ada').length, size + 1 + 2 + 3 + 1);
  assert.equal(textQuoteStart(`On ${' '.repeat(size)}x`), -1);
});

test('HTML: a marker is an attribute of a start tag, quoted or not, in any case; the same words elsewhere are not', () => {
  const at = (html: string) => htmlQuoteStart(`<p>Hi</p>${html}`) - '<p>Hi</p>'.length;
  for (const marker of [
    '<div id=divRplyFwdMsg>',
    "<DIV dir='ltr' ID = 'divRplyFwdMsg'>",
    '<div id="appendonsend"></div>',
    '<div id="mail-editor-reference-message-container">',
    "<div class='gmail_quote'>",
    '<div class="a moz-cite-prefix b">',
    '<div class=moz-cite-prefix>',
    '<blockquote style="margin:0" type=\'cite\'>',
  ])
    assert.equal(at(`${marker}q`), 0, marker);
  for (const text of [
    '<div title="id=divRplyFwdMsg">',
    '<div data-id="divRplyFwdMsg">',
    '<p>divRplyFwdMsg, gmail_quote and moz-cite-prefix in the text</p>',
    '<div class="gmail_quote_container">',
    '<blockquote class="cite">',
    '<div id="x" class="y">gmail_quote</div>',
  ])
    assert.equal(htmlQuoteStart(`<p>Hi</p>${text}`), -1, text);
});
