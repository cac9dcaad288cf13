// Email-safe HTML: CSS from <style> blocks inlined into style attributes (juice), then an allowlist
// fit for signatures (tables, images, links, inline styles; no scripts, handlers, iframes, forms or
// javascript: URLs) through sanitize-html. Both parse with htmlparser2, which leaves Liquid tags
// where they stand; they are still shielded as placeholders so no attribute rule can mangle them.
import juice from 'juice';
import sanitizeHtml from 'sanitize-html';

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'a', 'b', 'br', 'center', 'div', 'em', 'font', 'h1', 'h2', 'h3', 'h4', 'hr', 'i', 'img', 'li', 'ol', 'p',
    'small', 'span', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul',
  ],
  allowedAttributes: {
    '*': ['style', 'align', 'valign', 'width', 'height', 'bgcolor', 'color', 'dir', 'class', 'title'],
    a: ['href', 'target', 'rel', 'name'],
    img: ['src', 'alt', 'width', 'height', 'border'],
    table: ['cellpadding', 'cellspacing', 'border', 'role'],
    td: ['colspan', 'rowspan', 'nowrap'],
    th: ['colspan', 'rowspan'],
    font: ['face', 'size'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel', 'cid'],
  allowedSchemesByTag: { img: ['http', 'https', 'cid'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // CSS with expressions or url(javascript:…) has no place in a signature.
  allowedStyles: undefined,
};

const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/** Prepares a template's HTML at save time: inlined CSS, allowlisted markup, Liquid intact. */
export function prepareTemplateHtml(source: string): string {
  const shielded: string[] = [];
  const protectedHtml = source.replace(LIQUID, (m) => `\u2063LQ${shielded.push(m) - 1}\u2063`);
  const inlined = juice(protectedHtml, { applyWidthAttributes: true, applyHeightAttributes: true, preserveMediaQueries: false, removeStyleTags: true, insertPreservedExtraCss: false });
  const clean = sanitizeHtml(inlined, ALLOWED);
  return clean.replace(/\u2063LQ(\d+)\u2063/g, (_, i: string) => shielded[Number(i)] ?? '');
}

const URL_ATTRIBUTE = /\b(href|src)(\s*=\s*)("([^"]*)"|'([^']*)')/gi;
const SAFE_SCHEME = /^(https?|mailto|tel|cid):/;
const ENTITY = /&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi;
const NAMED: Record<string, string> = { amp: '&', colon: ':', tab: '\t', newline: '\n', quot: '"', apos: "'", lt: '<', gt: '>' };

function decodeEntities(value: string): string {
  return value.replace(ENTITY, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return NAMED[e.toLowerCase()] ?? m;
  });
}

/**
 * Rendered output needs one more check, and only this one: the template was sanitized when saved
 * and every value is HTML-escaped, so a value cannot add a tag or an attribute; it can only fill
 * a URL attribute with a scheme such as javascript:. Cheaper than sanitizing the whole output on
 * every render.
 */
export function sanitizeRendered(html: string): string {
  return html.replace(URL_ATTRIBUTE, (whole, name: string, eq: string, _q: string, dq?: string, sq?: string) => {
    const value = decodeEntities(dq ?? sq ?? '').replace(/[\s\x00-\x1f]+/g, '').toLowerCase();
    const scheme = /^[a-z][a-z0-9+.-]*:/.exec(value);
    if (!scheme || SAFE_SCHEME.test(value)) return whole;
    return `${name}${eq}"#"`;
  });
}

/** Advice for mail clients: Gmail's 10,000-character limit, images without sizes, base64 images. */
export function renderWarnings(html: string): string[] {
  const warnings: string[] = [];
  if (html.length > 10_000) warnings.push(`The HTML has ${html.length} characters; Gmail refuses signatures over 10,000.`);
  for (const img of html.match(/<img\b[^>]*>/gi) ?? []) {
    if (!/\bwidth=/i.test(img) || !/\bheight=/i.test(img)) {
      warnings.push('An image has no width and height attributes; Outlook may show it at full size.');
      break;
    }
  }
  if (/<img\b[^>]*src=["']?data:/i.test(html)) warnings.push('An embedded (base64) image breaks in Gmail; host it instead.');
  return warnings;
}
