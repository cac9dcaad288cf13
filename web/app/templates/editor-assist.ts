// What the HTML editor adds to CodeMirror's HTML and Liquid support: auto-closing that never
// duplicates (a closing `</p>` or `%}` the editor inserted is typed over, not typed again), and lint
// markers at the line of an unbalanced tag or a Liquid error. Written here because neither
// @codemirror/lang-html nor @codemirror/lang-liquid remembers what it auto-inserted, and the
// mismatch of the two (typing `</p>` after `<p>` auto-closed, or `%}` after `{%` became `{%%}`) is
// exactly what left `</p></p>` and a stray `%}` in saved templates.
import { Prec, StateEffect, StateField, type Extension, type Text } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { Liquid } from 'liquidjs';
import { friendlyLiquid } from './liquid-words.ts';

/** Closers the editor inserted after the cursor, still untouched: [from, to) in the document. */
const pending = StateField.define<readonly { from: number; to: number }[]>({
  create: () => [],
  update(ranges, tr) {
    let next = ranges.flatMap((r) => {
      // Typing at a closer's start pushes it on (assoc 1); edits inside it drop it.
      const from = tr.changes.mapPos(r.from, 1);
      const to = tr.changes.mapPos(r.to, -1);
      let touched = false;
      tr.changes.iterChangedRanges((fromA, toA) => {
        if (fromA < r.to && toA > r.from) touched = true;
      });
      return touched || to <= from ? [] : [{ from, to }];
    });
    for (const e of tr.effects)
      if (e.is(consumed)) next = next.flatMap((r) => (r.from === e.value ? (r.to - r.from > 1 ? [{ from: r.from + 1, to: r.to }] : []) : [r]));
    if (tr.docChanged && (tr.isUserEvent('input.complete') || tr.isUserEvent('input.type'))) {
      const head = tr.state.selection.main.head;
      tr.changes.iterChanges((_fa, _ta, fromB, toB, inserted) => {
        const text = inserted.toString();
        // lang-html: `<p>` + `</p>` after the cursor; lang-liquid: `{` `%` became `{%%}`.
        if (tr.isUserEvent('input.complete') && fromB >= head && text.startsWith('</')) next = [...next, { from: fromB, to: toB }];
        if (text === '%%' && tr.state.doc.sliceString(head, head + 2) === '%}') next = [...next, { from: head, to: head + 2 }];
      });
    }
    return next;
  },
});

const consumed = StateEffect.define<number>();

/** Typing the next character of a pending closer moves over it instead of inserting it. */
const typeThrough = Prec.highest(
  EditorView.inputHandler.of((view, from, to, text) => {
    if (from !== to || text.length !== 1) return false;
    const closer = view.state.field(pending).find((r) => r.from === from);
    if (!closer || view.state.doc.sliceString(from, from + 1) !== text) return false;
    view.dispatch({ selection: { anchor: from + 1 }, effects: consumed.of(from), userEvent: 'input.type', scrollIntoView: true });
    return true;
  }),
);

export const autoCloseOnce: Extension = [pending, typeThrough];

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/** The source with Liquid and comments blanked out (same length, so offsets stay true). */
function htmlOnly(source: string): string {
  return source.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** Tags opened and never closed, and closing tags that close nothing open. */
export function unbalancedTags(source: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const open: { name: string; from: number; to: number }[] = [];
  for (const m of htmlOnly(source).matchAll(/<(\/?)([a-zA-Z][\w-]*)\b[^<>]*?(\/?)>/g)) {
    const [whole, slash, raw, selfClose] = m;
    const name = raw!.toLowerCase();
    const from = m.index;
    const to = from + whole.length;
    if (!slash) {
      if (!selfClose && !VOID.has(name)) open.push({ name, from, to });
      continue;
    }
    const at = open.findLastIndex((t) => t.name === name);
    if (at < 0) {
      out.push({ from, to, severity: 'error', message: `</${name}> closes nothing: no <${name}> is open here.` });
      continue;
    }
    for (const t of open.splice(at).slice(1)) out.push({ from: t.from, to: t.to, severity: 'error', message: `<${t.name}> is not closed before </${name}>.` });
  }
  for (const t of open) out.push({ from: t.from, to: t.to, severity: 'error', message: `<${t.name}> is never closed: add </${t.name}>.` });
  return out;
}

const parser = new Liquid();

/** A Liquid syntax error, worded for people, at its line (liquidjs reports line and column). */
export function liquidProblem(source: string, doc: Text): Diagnostic[] {
  try {
    parser.parse(source);
    return [];
  } catch (err) {
    const e = err as { message?: string; token?: { getPosition?: () => number[] } };
    const [line = 1, col = 1] = e.token?.getPosition?.() ?? [];
    const pos = Math.min(doc.line(Math.min(Math.max(line, 1), doc.lines)).from + Math.max(col - 1, 0), doc.length);
    const end = Math.min(doc.lineAt(pos).to, doc.length);
    return [{ from: pos, to: Math.max(end, pos), severity: 'error', message: friendlyLiquid(e.message ?? 'Liquid cannot read this.') }];
  }
}

/** The markers: after a pause in typing (a second), so nothing flashes while a tag is half-typed. */
export function templateLint(mode: 'html' | 'text'): Extension {
  return [
    linter(
      (view) => {
        const source = view.state.doc.toString();
        return [...liquidProblem(source, view.state.doc), ...(mode === 'html' ? unbalancedTags(source) : [])];
      },
      { delay: 1000 },
    ),
    lintGutter(),
  ];
}
