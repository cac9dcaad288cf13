// Liquid hidden from an HTML parser: each tag and output becomes a placeholder the parser reads as
// plain text, and comes back as written afterwards. A `<` or `>` inside Liquid (`{{ '<b>' }}`,
// `{% if a > b %}`) would otherwise be read as markup. Used where a template's HTML is made
// email-safe (render/email-html.ts) and where an html block's text is read (designer/html-text.ts).

const PLACEHOLDER = /\u2063LQ(\d+)\u2063/g;

/**
 * Replaces each Liquid tag and output with a placeholder. Hand-written rather than a regex: the
 * lazy regex this replaces (`\{\{[\s\S]*?\}\}`) rescans to the end of the input from every
 * unclosed `{{`, 13 s for 100 KB of `{`. Here each delimiter is searched for once: when no `}}`
 * follows one `{{`, none follows any later one either, so the scan stops looking for that kind.
 */
export function shieldLiquid(source: string): { html: string; parts: string[] } {
  const parts: string[] = [];
  let out = '';
  let at = 0;
  let outputOpen = true;
  let tagOpen = true;
  while (at < source.length) {
    const output = outputOpen ? source.indexOf('{{', at) : -1;
    const tag = tagOpen ? source.indexOf('{%', at) : -1;
    if (output < 0) outputOpen = false;
    if (tag < 0) tagOpen = false;
    if (output < 0 && tag < 0) break;
    const isOutput = tag < 0 || (output >= 0 && output < tag);
    const start = isOutput ? output : tag;
    const end = source.indexOf(isOutput ? '}}' : '%}', start + 2);
    if (end < 0) {
      if (isOutput) outputOpen = false;
      else tagOpen = false;
      continue;
    }
    out += `${source.slice(at, start)}\u2063LQ${parts.push(source.slice(start, end + 2)) - 1}\u2063`;
    at = end + 2;
  }
  return { html: out + source.slice(at), parts };
}

/** The Liquid whose placeholders a text holds, in order (the text around them left out). */
export function liquidIn(text: string, parts: string[]): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => parts[Number(m[1])] ?? '');
}

/** The Liquid back in place of its placeholders; `keep` may leave some out (they become ''). */
export function unshieldLiquid(html: string, parts: string[], keep: (part: string) => boolean = () => true): string {
  return html.replace(PLACEHOLDER, (_, i: string) => {
    const part = parts[Number(i)] ?? '';
    return keep(part) ? part : '';
  });
}
