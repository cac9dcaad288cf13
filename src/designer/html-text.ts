// The plain-text version of an `html` block (compile.ts): its text content, tags removed, a line
// break where a line or a block ends, entities decoded. Liquid in the text (`{{ org.name }}`,
// `{% if … %}`) is kept as written: it is shielded from the parser first, so a `<` or `>` inside it
// is not read as a tag. Liquid inside an attribute (a link's address) is left out with its tag.
// What is not shown (a <style> sheet, a script) is no text; only the Liquid tags in it are kept, so
// an `{% if %}` there still meets its `{% endif %}` in the text template. htmlparser2 (a dependency
// already, for src/render/email-html.ts) does the reading.
import { Parser } from 'htmlparser2';
import { liquidIn, shieldLiquid, unshieldLiquid } from '../lib/liquid-shield.ts';

const LINE_ENDS = new Set(['br', 'p', 'div', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table']);
/** Elements whose content a mail client does not show as text. */
const NOT_SHOWN = new Set(['style', 'script', 'head', 'title', 'template', 'noscript']);

export function htmlBlockText(html: string): string {
  const { html: shielded, parts } = shieldLiquid(html);
  let text = '';
  let hidden = 0;
  let hiddenText = '';
  const parser = new Parser(
    {
      onopentag: (name) => {
        if (NOT_SHOWN.has(name)) hidden += 1;
      },
      ontext: (data) => {
        if (hidden > 0) hiddenText += data;
        else text += data.replace(/\s+/g, ' ');
      },
      onclosetag: (name) => {
        if (NOT_SHOWN.has(name) && hidden > 0) {
          hidden -= 1;
          // Read once the element ends: the parser may hand its text over in pieces.
          if (hidden === 0) {
            text += liquidIn(hiddenText, parts)
              .filter((part) => part.startsWith('{%'))
              .join('');
            hiddenText = '';
          }
        } else if (LINE_ENDS.has(name)) text += '\n';
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(shielded);
  parser.end();
  const lines = unshieldLiquid(text, parts)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
