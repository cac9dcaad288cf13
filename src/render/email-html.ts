// Email-safe HTML: CSS from <style> blocks inlined into style attributes (juice), then an allowlist
// fit for signatures (tables, images, links, inline styles with email-safe CSS properties; no
// scripts, handlers, iframes, forms or javascript: URLs) through sanitize-html. The allowlist runs
// twice: on the template when it is saved (Liquid shielded as placeholders), and on every rendered
// output (CSS properties too), because `| raw`, `{% raw %}` and user fields can put anything there.
// All of it is CPU work on untrusted input and runs in the render worker (worker.ts), after the
// linear-time caps below have bounded what juice and the serializers have to do.
import juice from 'juice';
import sanitizeHtml from 'sanitize-html';
import { Parser } from 'htmlparser2';
import { filterInlineStyle } from './inline-style.ts';
import { shieldLiquid, unshieldLiquid } from '../lib/liquid-shield.ts';

/**
 * Caps on a template's structure, checked before juice sees it. juice matches every selector
 * against every element and copies every matched declaration, so its time grows with
 * (selectors + declarations) × elements: 2,000 rules over 1,600 elements took 23 s. `cssWork` caps
 * that product (a real signature: 30 selectors and 100 declarations over 200 elements, 26,000).
 */
export const CAPS = { cssSelectors: 200, elements: 2_000, depth: 100, cssWork: 200_000 };

export class TemplateRefused extends Error {}

// Built once: sanitize-html takes its options per call, and first renders are the hot path.
// `rendered`: style attributes go through the CSS allowlist (inline-style.ts). Not at save: a
// Liquid placeholder standing for a whole declaration (`style="{{ user.title }}"`) is no CSS and
// would be dropped; the rendered output is checked with the values in place.
function options(rendered: boolean): sanitizeHtml.IOptions {
  return {
    allowedTags: [
      'a',
      'b',
      'br',
      'center',
      'div',
      'em',
      'font',
      'h1',
      'h2',
      'h3',
      'h4',
      'hr',
      'i',
      'img',
      'li',
      'ol',
      'p',
      'small',
      'span',
      'strong',
      'sub',
      'sup',
      'table',
      'tbody',
      'td',
      'tfoot',
      'th',
      'thead',
      'tr',
      'u',
      'ul',
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
    // sanitize-html's own style parsing (postcss) is off in both; the rendered pass filters styles
    // itself, in the transform, which sees the attributes entity-decoded and before they are checked.
    parseStyleAttributes: false,
    ...(rendered ? { transformTags: { '*': filterRenderedTag } } : {}),
  };
}

// Set by the transform during one sanitizeRendered call (synchronous, one thread).
let removedDataImage = false;

function filterRenderedTag(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  if (attribs.style !== undefined) {
    const style = filterInlineStyle(attribs.style);
    if (style) attribs.style = style;
    else delete attribs.style;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers skip leading control characters in a URL, so `\x01data:` is a data: URL too
  if (tagName === 'img' && /^[\s\x00-\x1f]*data:/i.test(attribs.src ?? '')) removedDataImage = true;
  return { tagName, attribs };
}

const RENDERED_OPTIONS = options(true);
const TEMPLATE_OPTIONS = options(false);

// juice shields `{{ }}` and `<% %>` itself with the same lazy regex as below (5 s for 100 KB of
// `{`) and restores them with one regex pass per block (quadratic in their number). Liquid is
// shielded before juice sees it, so its own shielding is switched off (`juice.codeBlocks` is the
// library's documented, process-wide setting; this module is only loaded in the render worker).
for (const key of Object.keys(juice.codeBlocks)) delete juice.codeBlocks[key];

/**
 * One streaming pass (htmlparser2's tokenizer keeps no recursion) that refuses what would make juice
 * quadratic or the DOM serializers recurse too deep: too many CSS selectors, elements or levels.
 * Selectors are counted as each `{` of a <style> block plus the commas before it since the last
 * rule or declaration ended, which is what juice matches one by one; declarations as each `:`
 * (pseudo-classes count too: an overestimate, on the safe side).
 */
export function checkStructure(html: string): void {
  let elements = 0;
  let depth = 0;
  let selectors = 0;
  let declarations = 0;
  let inStyle = false;
  let prelude = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        elements++;
        depth++;
        if (name === 'style') inStyle = true;
        if (elements > CAPS.elements) throw new TemplateRefused(`The HTML has more than ${CAPS.elements} elements.`);
        if (depth > CAPS.depth) throw new TemplateRefused(`The HTML nests elements more than ${CAPS.depth} levels deep.`);
      },
      onclosetag(name) {
        depth--;
        if (name === 'style') inStyle = false;
      },
      ontext(text) {
        if (!inStyle) return;
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (c === 44 /* , */) prelude++;
          else if (c === 58 /* : */) declarations++;
          else if (c === 59 /* ; */ || c === 125 /* } */) prelude = 0;
          else if (c === 123 /* { */) {
            selectors += prelude + 1;
            prelude = 0;
          }
        }
        if (selectors > CAPS.cssSelectors) throw new TemplateRefused(`The <style> blocks have more than ${CAPS.cssSelectors} CSS selectors.`);
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  if (selectors > 0 && (selectors + declarations) * elements > CAPS.cssWork) {
    throw new TemplateRefused(
      `The <style> blocks (${selectors} selectors, ${declarations} declarations) over ${elements} elements are too much CSS to inline: at most ${CAPS.cssWork} for (selectors + declarations) × elements; use fewer rules or inline styles.`,
    );
  }
}

/** Prepares a template's HTML at save time: inlined CSS, allowlisted markup, Liquid intact. */
export function prepareTemplateHtml(source: string, between: () => void = () => {}): string {
  const { html, parts } = shieldLiquid(source);
  checkStructure(html);
  between();
  const inlined = juice(html, {
    applyWidthAttributes: true,
    applyHeightAttributes: true,
    preserveMediaQueries: false,
    removeStyleTags: true,
    insertPreservedExtraCss: false,
  });
  between();
  const clean = sanitizeHtml(inlined, TEMPLATE_OPTIONS);
  between();
  return unshieldLiquid(clean, parts);
}

/**
 * Rendered output, sanitized again in full: Liquid's `raw` filter, `{% raw %}` and user fields can
 * put any markup, attribute or style into it. Runs once per (template, user, org) version: the
 * output is cached. Reports whether an embedded (data:) image was removed.
 */
export function sanitizeRendered(html: string): { html: string; removedDataImage: boolean } {
  removedDataImage = false;
  const clean = sanitizeHtml(html, RENDERED_OPTIONS);
  return { html: clean, removedDataImage };
}

/** Advice for mail clients: Gmail's 10,000-character limit, images without sizes. */
export function renderWarnings(html: string): string[] {
  const warnings: string[] = [];
  if (html.length > 10_000) warnings.push(`The HTML has ${html.length} characters; Gmail refuses signatures over 10,000.`);
  // Sanitized output closes every tag with `>` and escapes `<` in text, so this scan is linear.
  for (const img of html.match(/<img\b[^>]*>/gi) ?? []) {
    if (!/\bwidth=/i.test(img) || !/\bheight=/i.test(img)) {
      warnings.push('An image has no width and height attributes; Outlook may show it at full size.');
      break;
    }
  }
  return warnings;
}
