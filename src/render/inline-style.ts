// The CSS allowlist for style attributes of rendered signatures. Hand-written instead of
// sanitize-html's `allowedStyles`, which parses every style attribute with postcss (a full CSS
// parser building a syntax tree per attribute) on every first render. What this filter keeps does
// not depend on parsing the input as a browser would: the output is rebuilt from declarations whose
// property is on the list and whose whole value matches SAFE_VALUE (no `:`, `;`, `\`, `*`, `(`
// outside the colour functions, `<`, `>`, `&`, quotes only in pairs), so a declaration the
// splitter misreads is dropped, never let through. One linear pass; no regex backtracking on
// anything but a single value.

// A CSS value fit for a signature: words, numbers with units, #colours, quoted font names, commas,
// and the colour functions. Anything else (url(), expression(), escapes, comments, var(), attr())
// is dropped.
export const SAFE_VALUE = /^(?:[-\w.#%!,'" /+]|(?:rgba?|hsla?)\([\d\s.,%/]*\))*$/i;

// Properties that mail clients honour and that cannot load anything or escape the signature's box
// (no position, z-index, behavior, -moz-binding, background-image, content).
export const CSS_PROPERTIES: ReadonlySet<string> = new Set([
  'background-color',
  'border',
  'border-bottom',
  'border-bottom-color',
  'border-bottom-style',
  'border-bottom-width',
  'border-collapse',
  'border-color',
  'border-left',
  'border-left-color',
  'border-left-style',
  'border-left-width',
  'border-radius',
  'border-right',
  'border-right-color',
  'border-right-style',
  'border-right-width',
  'border-spacing',
  'border-style',
  'border-top',
  'border-top-color',
  'border-top-style',
  'border-top-width',
  'border-width',
  'color',
  'direction',
  'display',
  'font',
  'font-family',
  'font-size',
  'font-style',
  'font-variant',
  'font-weight',
  'height',
  'letter-spacing',
  'line-height',
  'margin',
  'margin-bottom',
  'margin-left',
  'margin-right',
  'margin-top',
  'max-height',
  'max-width',
  'min-height',
  'min-width',
  'mso-line-height-rule',
  'mso-table-lspace',
  'mso-table-rspace',
  'padding',
  'padding-bottom',
  'padding-left',
  'padding-right',
  'padding-top',
  'table-layout',
  'text-align',
  'text-decoration',
  'text-indent',
  'text-transform',
  'vertical-align',
  'white-space',
  'width',
  'word-break',
  'word-spacing',
]);

/**
 * Keeps the allowlisted declarations of a style attribute's (entity-decoded) value, as
 * `prop:value` joined by `;`; '' when none is left. Declarations are split on `;` outside quotes
 * and parentheses, `\` escaping the next character as in CSS; a declaration with an unclosed quote
 * or parenthesis runs to the end and is dropped whole. Property names are ASCII case-insensitive
 * in CSS, so they are compared (and written) in lower case.
 */
export function filterInlineStyle(style: string): string {
  const kept: string[] = [];
  const add = (declaration: string) => {
    const d = keep(declaration);
    if (d) kept.push(d);
  };
  let start = 0;
  let quote = 0;
  let depth = 0;
  for (let i = 0; i < style.length; i++) {
    const c = style.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 /* " */ || c === 39 /* ' */) quote = c;
    else if (c === 40 /* ( */) depth++;
    else if (c === 41 /* ) */) depth = Math.max(0, depth - 1);
    else if (c === 59 /* ; */ && depth === 0) {
      add(style.slice(start, i));
      start = i + 1;
    }
  }
  if (quote === 0 && depth === 0) add(style.slice(start));
  return kept.join(';');
}

function keep(declaration: string): string | undefined {
  const colon = declaration.indexOf(':');
  if (colon < 0) return undefined;
  const property = declaration.slice(0, colon).trim().toLowerCase();
  const value = declaration.slice(colon + 1).trim();
  if (!value || !CSS_PROPERTIES.has(property) || !SAFE_VALUE.test(value) || !pairedQuotes(value)) return undefined;
  return `${property}:${value}`;
}

/** Quotes in pairs, so a kept value cannot open a string that swallows what follows it. */
function pairedQuotes(value: string): boolean {
  let quote = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (quote === 0 && (c === 34 || c === 39)) quote = c;
    else if (c === quote) quote = 0;
  }
  return quote === 0;
}
