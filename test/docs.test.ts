// The documentation a clone ships: the README opens with its two commands, and every link of the
// README and docs/ points at a file of the repository (none outside it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const files = [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

test('the README opens with the two commands', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /^# Signature Service\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block
    .trim()
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim());
  assert.deepEqual(commands, ['npm install && npm start', 'npm install && npm test']);
});

test('the README stays a front page (at most ~250 lines; the rest is in docs/)', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test('every relative link of the README and docs/ names a file inside the repository', () => {
  assert.ok(files.includes('docs/guide.md') && files.includes('docs/identity.md'), files.join());
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^(https?:|mailto:|#)/.test(target)) continue;
      checked++;
      const path = resolve(dirname(join(ROOT, file)), target.split('#')[0] as string);
      assert.ok(!relative(ROOT, path).startsWith('..'), `${file} links outside the repository: ${target}`);
      assert.ok(existsSync(path), `${file} links to a missing file: ${target}`);
    }
  }
  assert.ok(checked >= 5, `the docs' relative links were found and checked (${checked})`);
});

test('the README shows commands as `npx sigsvc`, never `npm run cli` (npm echoes the command line, passwords included)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
  assert.ok(!/npm run cli/.test(blocks), 'a shell block runs `npm run cli`');
  assert.match(blocks, /npx sigsvc org create/);
});
