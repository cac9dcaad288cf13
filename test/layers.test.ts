// The import arrows of src/ point one way: from the process's edges (app, deps, main, cli) through
// the HTTP layer and the capabilities to the store and the neutral modules, never back. Read from
// the source text, so a new file is held to the layers the day it is added.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(import.meta.dirname, '..', 'src');

/** Lower numbers are lower layers; a file may import its own layer or a lower one. */
const LAYERS = ['neutral', 'store', 'capability', 'http', 'edge'] as const;
type Layer = (typeof LAYERS)[number];

const ROUTE_FILE = /(^|\/)(routes|[\w-]+-routes)\.ts$/;

export function layerOf(file: string): Layer {
  if (file.startsWith('lib/') || ['errors.ts', 'config.ts', 'log.ts', 'runtime.ts'].includes(file)) return 'neutral';
  if (file.startsWith('store/')) return 'store';
  if (['app.ts', 'deps.ts', 'main.ts'].includes(file) || file.startsWith('cli/')) return 'edge';
  // What speaks HTTP: the http folder, the route plugins, their zod schemas, and the hooks a
  // route lists (guards, throttle, billing gate). Services below them know nothing of Fastify.
  if (
    file.startsWith('http/') ||
    ROUTE_FILE.test(file) ||
    /(^|\/)(schemas|hooks?|guard)\.ts$/.test(file) ||
    file === 'auth/idp/interactions.ts'
  ) {
    return 'http';
  }
  return 'capability';
}

// Arrows that run backwards today and belong to another piece of work; each names its owner.
const ALLOWED = new Set([
  // BillingState is still the billing domain's; it moves out of it with the billing work.
  'store/repositories/billing.ts -> billing/state-machine.ts',
]);

const IMPORT = /(?:^|\n)\s*(import|export)(\s+type\b)?[^'";]*?\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/** The src files a file imports; with `values`, only imports that exist at run time (not `import type`). */
function importsOf(file: string, opts: { values?: boolean } = {}): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4];
    if (!spec?.startsWith('.') || (opts.values && m[2])) continue;
    found.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return found;
}

const files = globSync('**/*.ts', { cwd: SRC })
  .map((f) => f.split(path.sep).join('/'))
  .filter((f) => !f.endsWith('.test.ts'))
  .sort();

test('the layer rules see the whole source tree', () => {
  assert.ok(files.length > 50, `found ${files.length} files`);
  assert.ok(files.includes('app.ts') && files.includes('errors.ts'));
  const edges = files.flatMap((f) => importsOf(f));
  assert.ok(edges.length > 100, `found ${edges.length} imports`);
  for (const target of edges) assert.ok(files.includes(target) || target.endsWith('.json'), `unresolved import ${target}`);
});

test('no file imports a file of a higher layer', () => {
  const wrong: string[] = [];
  for (const file of files) {
    for (const target of importsOf(file)) {
      if (!files.includes(target)) continue;
      const arrow = `${file} -> ${target}`;
      if (ALLOWED.has(arrow)) continue;
      if (LAYERS.indexOf(layerOf(target)) > LAYERS.indexOf(layerOf(file))) {
        wrong.push(`${arrow} (${layerOf(file)} imports ${layerOf(target)})`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('repositories import only the store and neutral modules', () => {
  const wrong = files
    .filter((f) => f.startsWith('store/repositories/'))
    .flatMap((f) => importsOf(f).map((t) => [f, t] as const))
    .filter(([f, t]) => !ALLOWED.has(`${f} -> ${t}`) && !['neutral', 'store'].includes(layerOf(t)))
    .map(([f, t]) => `${f} -> ${t}`);
  assert.deepEqual(wrong, []);
});

// Row types may cross (a presenter shapes what a service returned); calls may not.
test('the HTTP layer reaches the store through services only', () => {
  const wrong = files
    .filter((f) => layerOf(f) === 'http')
    .flatMap((f) => importsOf(f, { values: true }).map((t) => [f, t] as const))
    .filter(([f, t]) => (t.startsWith('store/repositories/') || t === 'store/db.ts') && !ALLOWED.has(`${f} -> ${t}`))
    .map(([f, t]) => `${f} -> ${t}`);
  assert.deepEqual(wrong, []);
});

// Services answer resources (each capability's resource.ts maps its rows), so a route has no use for
// the store, not even for a row type.
const ROUTES_ON_ROWS = new Set([
  // The directory helper reworks the Microsoft connection (issue 25 item 3); its presenter moves then.
  'microsoft/routes.ts -> store/schema.ts',
]);

test('route files import nothing from the store', () => {
  const wrong = files
    .filter((f) => ROUTE_FILE.test(f))
    .flatMap((f) => importsOf(f).map((t) => [f, t] as const))
    .filter(([f, t]) => t.startsWith('store/') && !ROUTES_ON_ROWS.has(`${f} -> ${t}`))
    .map(([f, t]) => `${f} -> ${t}`);
  assert.deepEqual(wrong, []);
});

test('route files are registered by app.ts alone', () => {
  const wrong = files
    .filter((f) => f !== 'app.ts')
    .flatMap((f) => importsOf(f).map((t) => [f, t] as const))
    .filter(([f, t]) => ROUTE_FILE.test(t) && !ALLOWED.has(`${f} -> ${t}`))
    .map(([f, t]) => `${f} -> ${t}`);
  assert.deepEqual(wrong, []);
});

test('the layers are what the rules say', () => {
  assert.equal(layerOf('lib/uuid.ts'), 'neutral');
  assert.equal(layerOf('store/repositories/users.ts'), 'store');
  assert.equal(layerOf('users/service.ts'), 'capability');
  assert.equal(layerOf('users/mfa-routes.ts'), 'http');
  assert.equal(layerOf('auth/guard.ts'), 'http');
  assert.equal(layerOf('cli/main.ts'), 'edge');
});
