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
