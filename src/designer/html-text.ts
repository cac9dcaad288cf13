// The plain-text version of an `html` block (compile.ts): its text content, tags removed, a line
// break where a line or a block ends, entities decoded. Liquid in the text (`{{ org.name }}`,
// `{% if … %}`) is kept, so the text template renders what the HTML one shows; Liquid inside an
// attribute (a link's address) is left out with its tag. htmlparser2 (a dependency already, for
// src/render/email-html.ts) does the reading.
import { Parser } from 'htmlparser2';

const LINE_ENDS = new Set(['br', 'p', 'div', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table']);

export function htmlBlockText(html: string): string {
  let text = '';
  const parser = new Parser(
    {
      ontext: (data) => {
        text += data.replace(/\s+/g, ' ');
      },
      onclosetag: (name) => {
        if (LINE_ENDS.has(name)) text += '\n';
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
