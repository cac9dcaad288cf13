// Where a signature goes in a message's text (docs/gateway.md, "What it does"): before the first
// reply or forward marker of the mail clients, else at the end. Pure string work on decoded text.

/**
 * The start of the quoted part of a reply or forward, as each client marks it in HTML, each with a
 * word the marker must contain: one search for the words (WORDS) picks the patterns to run, so that
 * a message without a quote costs one scan instead of a scan of every tag per pattern.
 */
const HTML_MARKERS: [string, RegExp][] = [
  ['divrplyfwdmsg', /<[a-z][^>]*\bid\s*=\s*["']?divRplyFwdMsg\b/i], // Outlook
  ['appendonsend', /<[a-z][^>]*\bid\s*=\s*["']?appendonsend\b/i], // Outlook (the web, new Outlook)
  ['mail-editor-reference-message-container', /<[a-z][^>]*\bid\s*=\s*["']?mail-editor-reference-message-container\b/i], // new Outlook
  ['gmail_quote', /<[a-z][^>]*\bclass\s*=\s*["'][^"']*\bgmail_quote\b/i], // Gmail
  ['moz-cite-prefix', /<[a-z][^>]*\bclass\s*=\s*["']?[^"'>]*\bmoz-cite-prefix\b/i], // Thunderbird
  ['blockquote', /<blockquote\b[^>]*\btype\s*=\s*["']?cite\b/i], // Apple Mail, Thunderbird
];

const WORDS = new RegExp(HTML_MARKERS.map(([word]) => word).join('|'), 'gi');

/** An attribution line ("On 25 Nov 2026, at 10:00, Ada wrote:") in the languages clients write it. */
const ATTRIBUTION = /(wrote|schrieb|a écrit|escribió|ha scritto|schreef|skrev|napisał|escreveu)\s*:\s*$/i;

/** The index where the HTML's quoted part starts (its attribution included), or -1. */
export function htmlQuoteStart(html: string): number {
  let first = -1;
  const present = new Set(Array.from(html.matchAll(WORDS), (m) => m[0].toLowerCase()));
  if (present.size === 0) return -1;
  for (const [word, marker] of HTML_MARKERS) {
    if (!present.has(word)) continue;
    const m = marker.exec(html);
    if (m && (first < 0 || m.index < first)) first = m.index;
  }
  if (first < 0) return -1;
  return attributionBefore(html, first) ?? first;
}

/** The start of the block that directly precedes `at` when its text is an attribution line. */
function attributionBefore(html: string, at: number): number | undefined {
  const before = html.slice(Math.max(0, at - 2000), at);
  const offset = at - before.length;
  // The last block element opened before the quote; its text (tags removed) must end with "wrote:".
  const opens = [...before.matchAll(/<(div|p)\b[^>]*>/gi)];
  for (let i = opens.length - 1; i >= Math.max(0, opens.length - 3); i--) {
    const start = opens[i]!.index;
    const text = before
      .slice(start)
      .replace(/<[^>]*>/g, ' ')
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

/** Inserts the signature's HTML before the quote, else before `</body>`, else at the end. */
export function insertHtml(html: string, signature: string): string {
  const at = htmlInsertionPoint(html);
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
    const bare = line.replace(/\r$/, '');
    if (TEXT_QUOTE_LINE.some((re) => re.test(bare))) return offset;
    // Outlook's plain-text replies start the quote with a header block after a blank line, or
    // after a rule of underscores.
    if (previousBlank && offset > 0 && /^From: /.test(bare)) return offset;
    if (/^_{10,}\s*$/.test(bare) && /^From: /.test(lines[i + 1] ?? '')) return offset;
    previousBlank = bare.trim() === '';
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
  const trailing = /(\r?\n)*$/.exec(text)?.[0] ?? '';
  const body = text.slice(0, text.length - trailing.length);
  return `${body}${body ? eol + eol : ''}${sig}${trailing || eol}`;
}
