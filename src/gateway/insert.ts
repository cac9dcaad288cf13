// Where a signature goes in a message's text (docs/gateway.md, "What it does"): before the first
// reply or forward marker of the mail clients, else at the end. Pure string work on decoded text.

/**
 * The start of the quoted part of a reply or forward, as each client marks it in HTML: a start tag
 * whose attribute says so (its value's first word, or one of its classes), each with a word the
 * tag must contain: one search for the words (WORDS) tells whether to look at the tags at all, so
 * that a message without a quote costs one scan.
 */
const HTML_MARKERS: { word: string; tag?: string; attribute: string; matches: (value: string) => boolean }[] = [
  { word: 'divrplyfwdmsg', attribute: 'id', matches: (v) => /^divRplyFwdMsg\b/i.test(v) }, // Outlook
  { word: 'appendonsend', attribute: 'id', matches: (v) => /^appendonsend\b/i.test(v) }, // Outlook (the web, new Outlook)
  { word: 'mail-editor-reference-message-container', attribute: 'id', matches: (v) => /^mail-editor-reference-message-container\b/i.test(v) }, // new Outlook
  { word: 'gmail_quote', attribute: 'class', matches: (v) => hasClass(v, 'gmail_quote') }, // Gmail
  { word: 'moz-cite-prefix', attribute: 'class', matches: (v) => hasClass(v, 'moz-cite-prefix') }, // Thunderbird
  { word: 'blockquote', tag: 'blockquote', attribute: 'type', matches: (v) => /^cite\b/i.test(v) }, // Apple Mail, Thunderbird
];

const hasClass = (value: string, name: string) => value.toLowerCase().split(/\s+/).includes(name);

const WORDS = new RegExp(HTML_MARKERS.map(({ word }) => word).join('|'), 'gi');

/** An attribution line ("On 25 Nov 2026, at 10:00, Ada wrote:") in the languages clients write it. */
const ATTRIBUTION = /(wrote|schrieb|a écrit|escribió|ha scritto|schreef|skrev|napisał|escreveu)\s*:\s*$/i;

// Start tags and their attributes, read by two regular expressions instead of an HTML parser (this
// runs on every reply, and a parser would read the whole body) and written so that they cannot
// backtrack far: every repeat stops at a character the next step needs (`<`, `>`, a quote, `=`),
// so a failed step gives back at most a run of white space, a match ends where its characters end
// and the next search starts there: one pass over the HTML, however hostile (a pattern like
// `<[a-z][^>]*\bid=…`, tried from every `<`, was quadratic: 150 KB of `<a ` held the event loop
// 8 s). A tag ends at the next `<` or `>` (a `<` inside an attribute's value ends it early; the
// clients' quote markers have none).
const START_TAG = /<([a-z][^\s/<>]*)([^<>]*)/gi;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s"'<>]+)))?/g;

/** A start tag longer than this (its attributes) is no client's quote marker: the search starts this far before the first word. */
const MAX_TAG = 4096;

/** The index where the HTML's quoted part starts (its attribution included), or -1. */
export function htmlQuoteStart(html: string): number {
  let first = -1;
  const present = new Set<string>();
  for (const m of html.matchAll(WORDS)) {
    if (first < 0) first = m.index;
    present.add(m[0].toLowerCase());
  }
  if (first < 0) return -1;
  const markers = HTML_MARKERS.filter(({ word }) => present.has(word));
  const tags = new RegExp(START_TAG.source, START_TAG.flags);
  tags.lastIndex = Math.max(0, first - MAX_TAG);
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    const lower = m[0].toLowerCase();
    const candidates = markers.filter(({ word }) => lower.includes(word));
    if (candidates.length > 0 && candidates.some((marker) => isMarker(m[1]!, m[2]!, marker))) return attributionBefore(html, m.index) ?? m.index;
  }
  return -1;
}

function isMarker(tag: string, attributes: string, marker: (typeof HTML_MARKERS)[number]): boolean {
  if (marker.tag && tag.toLowerCase() !== marker.tag) return false;
  for (const [, name, ...values] of attributes.matchAll(ATTRIBUTE)) {
    const value = values.find((v) => v !== undefined);
    if (name!.toLowerCase() === marker.attribute && value !== undefined && marker.matches(value)) return true;
  }
  return false;
}

/** The start of the block that directly precedes `at` when its text is an attribution line. */
function attributionBefore(html: string, at: number): number | undefined {
  const before = html.slice(Math.max(0, at - 2000), at);
  const offset = at - before.length;
  // The last block element opened before the quote; its text (tags removed) must end with "wrote:".
  const opens = [...before.matchAll(/<(div|p)\b[^<>]*>/gi)];
  for (let i = opens.length - 1; i >= Math.max(0, opens.length - 3); i--) {
    const start = opens[i]!.index;
    const text = before
      .slice(start)
      .replace(/<[^<>]*>/g, ' ')
      .replace(/&nbsp;|\s+/g, ' ')
      .trim();
    if (ATTRIBUTION.test(text)) return offset + start;
    if (text.length > 0) return undefined;
  }
  return undefined;
}

/** Where the signature's HTML goes: before the quote, else before `</body>`, else at the end. */
export function htmlInsertionPoint(html: string): number {
  const at = htmlQuoteStart(html);
  if (at >= 0) return at;
  const body = html.search(/<\/body\s*>/i);
  return body >= 0 ? lastIndexOfBodyEnd(html) : html.length;
}

/** Inserts the signature's HTML before the quote, else before `</body>`, else at the end (`at`, when the caller found it already). */
export function insertHtml(html: string, signature: string, at = htmlInsertionPoint(html)): string {
  return `${html.slice(0, at)}${signature}${html.slice(at)}`;
}

function lastIndexOfBodyEnd(html: string): number {
  const all = [...html.matchAll(/<\/body\s*>/gi)];
  return all.at(-1)!.index;
}

const TEXT_QUOTE_LINE = [
  /^-{2,}\s*Original Message\s*-{2,}\s*$/i,
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^Begin forwarded message:\s*$/i,
  /^On\s.+\bwrote:\s*$/i,
  /^>/,
];

/** The index of the first character of the plain text's quoted part, or -1. */
export function textQuoteStart(text: string): number {
  let offset = 0;
  let previousBlank = true;
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (bare.trim() === '') {
      // A blank line starts no quote (the fast way through a body of line breaks).
      previousBlank = true;
      offset += line.length + 1;
      continue;
    }
    if (TEXT_QUOTE_LINE.some((re) => re.test(bare))) return offset;
    // Outlook's plain-text replies start the quote with a header block after a blank line, or
    // after a rule of underscores.
    if (previousBlank && offset > 0 && /^From: /.test(bare)) return offset;
    if (/^_{10,}\s*$/.test(bare) && /^From: /.test(lines[i + 1] ?? '')) return offset;
    previousBlank = false;
    offset += line.length + 1;
  }
  return -1;
}

/** Inserts the signature's text before the quote (with a blank line after it), else at the end. */
export function insertText(text: string, signature: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const sig = signature.replace(/\r?\n/g, eol);
  const at = textQuoteStart(text);
  if (at >= 0) return `${text.slice(0, at)}${sig}${eol}${eol}${text.slice(at)}`;
  const body = text.slice(0, trailingLineBreaks(text));
  const trailing = text.slice(body.length);
  return `${body}${body ? eol + eol : ''}${sig}${trailing || eol}`;
}

/**
 * Where the text's trailing line breaks start. A loop, not `/(\r?\n)*$/`: a pattern anchored at
 * the end is tried from every position, quadratic on a body made of line breaks.
 */
function trailingLineBreaks(text: string): number {
  let end = text.length;
  while (text[end - 1] === '\n') {
    end -= text[end - 2] === '\r' ? 2 : 1;
  }
  return end;
}
