// The clock is injected: nothing in src/ reads the wall clock except src/lib/clock.ts,
// which the composition root hands to everything else. A `Date.now()` or a bare `new Date()` anywhere
// else would be time a test cannot move. `new Date(x)`, which parses or copies a value, is fine; so is
// `performance.now()`, which measures elapsed time, not the date. Read from the source text, so a new
// file is held to it the day it is added.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(import.meta.dirname, '..', 'src');
const CLOCK_MODULE = 'lib/clock.ts';

const READS_OF_THE_CLOCK: { name: string; pattern: RegExp }[] = [
  { name: 'Date.now', pattern: /\bDate\s*\.\s*now\b/ },
  { name: 'a bare new Date()', pattern: /\bnew\s+Date\s*(\(\s*\)|(?![\s(]))/ },
  { name: 'Date() as a function', pattern: /(?<![\w.$]|new\s+)Date\s*\(\s*\)/ },
];

/** The code of a file without its comment-only lines and block comments (a comment may name what it avoids). */
function codeOf(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (/^\s*\/\//.test(line) ? '' : line));
}

/** Where a text reads the wall clock, as `line: what`. */
export function clockReads(text: string): string[] {
  return codeOf(text).flatMap((line, i) => READS_OF_THE_CLOCK.filter(({ pattern }) => pattern.test(line)).map(({ name }) => `${i + 1}: ${name}`));
}

test('the matcher finds each way of reading the wall clock, and nothing else', () => {
  assert.deepEqual(clockReads('const t = Date.now();'), ['1: Date.now']);
  assert.deepEqual(clockReads('const f = { now: Date.now };'), ['1: Date.now']);
  assert.deepEqual(clockReads('x\nconst d = new Date();'), ['2: a bare new Date()']);
  assert.deepEqual(clockReads('const d = new Date;'), ['1: a bare new Date()']);
  assert.deepEqual(clockReads('const s = Date();'), ['1: Date() as a function']);
  assert.deepEqual(clockReads('const d = new Date(row.at); const e = new Date(clock().getTime() + 5);'), []);
  assert.deepEqual(clockReads('const ms = performance.now(); const p = Date.parse(v);'), []);
  assert.deepEqual(clockReads('// never Date.now() here\n/* nor new Date() */ const a = 1;'), []);
});

test('no file of src/ but the clock module reads the wall clock', () => {
  const files = globSync('**/*.{ts,tsx,js,mjs}', { cwd: SRC })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => !/\.test\.tsx?$/.test(f));
  assert.ok(files.length > 50, `found ${files.length} files`);
  assert.ok(files.includes(CLOCK_MODULE));
  assert.ok(clockReads(readFileSync(path.join(SRC, CLOCK_MODULE), 'utf8')).length > 0, 'the clock module reads the clock');
  const found = files.filter((f) => f !== CLOCK_MODULE).flatMap((f) => clockReads(readFileSync(path.join(SRC, f), 'utf8')).map((at) => `${f}:${at}`));
  assert.deepEqual(found, []);
});
