// The house rule on size (STYLE: files under ~400 lines, functions under ~80), held by reading src/.
// A function's length here is its own lines: those of the functions inside it (a service's
// methods, a route's handlers, a route plugin's groups) count for them, not for it. Found by
// matching braces in the text with strings, template literals and comments blanked out: a rough
// reading, not a parser, and enough to catch a function that grew past the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(import.meta.dirname, '..', 'src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

const sources = globSync('**/*.ts', { cwd: SRC })
  .map((f) => f.split(path.sep).join('/'))
  .sort();

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Strings, template literals and comments as spaces, newlines kept: braces left are code's. */
const blanked = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, (m) => m.replace(/[^\n]/g, ' '));

const CONTROL = /^\s*(\}\s*)?(if|for|while|switch|catch|else|do|try|finally)\b/;

/** Each function of the text longer than `max` own lines, as `line: own lines`. */
export function longFunctions(text: string, max: number): string[] {
  const code = blanked(text);
  const lines = code.split('\n');
  const stack: { fn: boolean; start: number; nested: number }[] = [];
  const found: string[] = [];
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i];
    if (ch === '\n') {
      line++;
      lineStart = i + 1;
    } else if (ch === '{') {
      // A function's body opens after `=>` or after a parameter list (and its return type), not after a control statement's.
      const before = code.slice(lineStart, i);
      const fn = (/=>\s*$/.test(before) || /\)\s*(:\s*[^(){}]*)?\s*$/.test(before)) && !CONTROL.test(lines[line] ?? '') && !/\bclass\b/.test(before);
      stack.push({ fn, start: line, nested: 0 });
    } else if (ch === '}') {
      const block = stack.pop();
      if (!block?.fn) continue;
      const total = line - block.start + 1;
      if (total - block.nested > max) found.push(`${block.start + 1}: ${total - block.nested} lines`);
      const parent = [...stack].reverse().find((b) => b.fn);
      if (parent) parent.nested += total;
    }
  }
  return found;
}

test('the size rules see the source tree', () => {
  assert.ok(sources.length > 100, `found ${sources.length} files`);
  // The reading finds what it should: a long function, its own lines apart from a nested one's.
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
  const long = `export function big() {\n${body(85)}\n}\n`;
  assert.deepEqual(longFunctions(long, MAX_FUNCTION_LINES), ['1: 87 lines']);
  const nested = `export function outer() {\n${body(50)}\n  const inner = () => {\n${body(50)}\n  };\n  if (inner) {\n    inner();\n  }\n}\n`;
  assert.deepEqual(longFunctions(nested, MAX_FUNCTION_LINES), []);
  assert.deepEqual(longFunctions(`const s = '{ not a block';\nfunction f() {\n  return '}';\n}\n`, 1), ['2: 3 lines']);
});

test(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
  const long = sources
    .map((f) => ({ f, n: lineCount(readFileSync(path.join(SRC, f), 'utf8')) }))
    .filter(({ n }) => n > MAX_FILE_LINES)
    .map(({ f, n }) => `${f}: ${n} lines`);
  assert.deepEqual(long, []);
});

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines of its own`, () => {
  const long = sources
    .filter((f) => !f.endsWith('.test.ts'))
    .flatMap((f) => longFunctions(readFileSync(path.join(SRC, f), 'utf8'), MAX_FUNCTION_LINES).map((at) => `${f}:${at}`));
  assert.deepEqual(long, []);
});
