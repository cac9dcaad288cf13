// The import arrows of src/ point one way, read from the source text (type imports included), so a
// new file is held to the structure the day it is added (docs/architecture.md draws it):
// - between folders: no loop, and each folder's tier imports only its own tier or lower ones
//   (neutral < store < platform < capability < edge);
// - between capability folders: only through the other's module.ts, its public face;
// - inside a folder: services below their HTTP routes below the folder's module.ts; a route file is
//   registered by its folder's module.ts alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(import.meta.dirname, '..', 'src');

/** What a folder (or a file at src/'s root) is: lower tiers never import higher ones. */
const TIERS = ['neutral', 'store', 'platform', 'capability', 'edge'] as const;
type Tier = (typeof TIERS)[number];
const NEUTRAL = ['kernel', 'lib', 'config.ts', 'config-fields.ts', 'config-gateway.ts', 'log.ts', 'runtime.ts', 'node-flags.json', 'node-env.json'];
/** What every capability may use directly: the core and what it is made of, and the HTTP layer's shared parts. */
const PLATFORM = ['core', 'cache', 'http', 'jobs', 'metrics', 'audit', 'ratelimit', 'quota'];
const EDGE = ['app.ts', 'deps.ts', 'main.ts', 'cli'];

/** Lower numbers are lower layers of files; a file may import its own layer or a lower one (and any other folder's face). */
const LAYERS = ['neutral', 'store', 'capability', 'http', 'module', 'edge'] as const;
type Layer = (typeof LAYERS)[number];

const ROUTE_FILE = /(^|\/)(routes|[\w-]+-routes)\.ts$/;

export const folderOf = (file: string): string => file.split('/')[0] as string;

export function tierOf(folder: string): Tier {
  if (NEUTRAL.includes(folder)) return 'neutral';
  if (folder === 'store') return 'store';
  if (PLATFORM.includes(folder)) return 'platform';
  if (EDGE.includes(folder)) return 'edge';
  return 'capability';
}

/** A folder's public face: what other folders import of a capability. */
const isFace = (file: string): boolean => /^[\w-]+\/module\.ts$/.test(file);

export function layerOf(file: string): Layer {
  const tier = tierOf(folderOf(file));
  if (tier === 'neutral' || tier === 'store' || tier === 'edge') return tier;
  if (isFace(file)) return 'module';
  // What speaks HTTP: the http folder, the route plugins, their zod schemas, and the hooks a
  // route lists (guards, throttle, billing gate). Services below them know nothing of Fastify.
  if (file.startsWith('http/') || ROUTE_FILE.test(file) || /(^|\/)(schemas|hooks?|guard)\.ts$/.test(file) || file === 'idp/interactions.ts') {
    return 'http';
  }
  return 'capability';
}

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
const arrows = files.flatMap((f) => importsOf(f).map((t) => ({ from: f, to: t })));
const folderArrows = new Map<string, Set<string>>();
for (const { from, to } of arrows) {
  const [a, b] = [folderOf(from), folderOf(to)];
  if (a === b) continue;
  if (!folderArrows.has(a)) folderArrows.set(a, new Set());
  folderArrows.get(a)?.add(b);
}

/** The folders that import each other in a loop (Tarjan's strongly connected components of more than one). */
function folderLoops(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const loops: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    for (const w of folderArrows.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const loop: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w) loop.push(w);
      } while (w && w !== v);
      if (loop.length > 1) loops.push(loop.sort());
    }
  };
  for (const v of folderArrows.keys()) if (!index.has(v)) visit(v);
  return loops;
}

test('the layer rules see the whole source tree', () => {
  assert.ok(files.length > 50, `found ${files.length} files`);
  assert.ok(files.includes('app.ts') && files.includes('kernel/errors.ts'));
  assert.ok(arrows.length > 100, `found ${arrows.length} imports`);
  for (const { to } of arrows) assert.ok(files.includes(to) || to.endsWith('.json'), `unresolved import ${to}`);
});

test('no loop between the folders of src/', () => {
  assert.deepEqual(folderLoops(), []);
});

test('no folder imports a folder of a higher tier', () => {
  const wrong = [...folderArrows].flatMap(([a, bs]) =>
    [...bs].filter((b) => TIERS.indexOf(tierOf(b)) > TIERS.indexOf(tierOf(a))).map((b) => `${a} (${tierOf(a)}) -> ${b} (${tierOf(b)})`),
  );
  assert.deepEqual(wrong, []);
});

test('the kernel imports nothing but itself', () => {
  const wrong = arrows.filter(({ from, to }) => from.startsWith('kernel/') && !to.startsWith('kernel/')).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

test('capability folders reach each other through module.ts alone', () => {
  const wrong = arrows
    .filter(({ from, to }) => folderOf(from) !== folderOf(to) && ['capability', 'edge'].includes(tierOf(folderOf(from))))
    .filter(({ to }) => tierOf(folderOf(to)) === 'capability' && !isFace(to))
    .map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

test('no file imports a file of a higher layer (another folder’s module.ts is its face, below the importer’s folder)', () => {
  const wrong = arrows
    .filter(({ to }) => files.includes(to))
    .filter(({ from, to }) => !(isFace(to) && folderOf(to) !== folderOf(from)))
    .filter(({ from, to }) => LAYERS.indexOf(layerOf(to)) > LAYERS.indexOf(layerOf(from)))
    .map(({ from, to }) => `${from} -> ${to} (${layerOf(from)} imports ${layerOf(to)})`);
  assert.deepEqual(wrong, []);
});

test('repositories import only the store and neutral modules', () => {
  const wrong = arrows
    .filter(({ from }) => from.startsWith('store/repositories/'))
    .filter(({ to }) => !['neutral', 'store'].includes(layerOf(to)))
    .map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

// Row types may cross (a presenter shapes what a service returned); calls may not.
test('the HTTP layer reaches the store through services only', () => {
  const wrong = files
    .filter((f) => layerOf(f) === 'http')
    .flatMap((f) => importsOf(f, { values: true }).map((t) => `${f} -> ${t}`))
    .filter((arrow) => /-> (store\/repositories\/|store\/db\.ts$)/.test(arrow));
  assert.deepEqual(wrong, []);
});

// Services answer resources (each capability's resource.ts maps its rows), so a route has no use for
// the store, not even for a row type.
const ROUTES_ON_ROWS = new Set([
  // The directory helper reworks the Microsoft connection (issue 25 item 3); its presenter moves then.
  'microsoft/routes.ts -> store/schema.ts',
]);

test('route files import nothing from the store', () => {
  const wrong = arrows
    .filter(({ from, to }) => ROUTE_FILE.test(from) && to.startsWith('store/') && !ROUTES_ON_ROWS.has(`${from} -> ${to}`))
    .map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

test('a route file is registered by its own folder’s module.ts alone', () => {
  const wrong = arrows
    .filter(({ to }) => ROUTE_FILE.test(to) && !to.startsWith('http/'))
    .filter(({ from, to }) => from !== `${folderOf(to)}/module.ts`)
    .map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

// A folder that nothing composes yet (a capability being written, with neither routes nor users)
// needs no face until it gets either: then the rules above ask for one.
test('every capability folder with routes, or imported by another folder, has a module.ts', () => {
  const capabilities = [...new Set(files.map(folderOf))].filter((f) => !f.endsWith('.ts') && tierOf(f) === 'capability');
  assert.ok(capabilities.length >= 15, capabilities.join(' '));
  const composed = capabilities.filter(
    (c) => files.some((f) => folderOf(f) === c && ROUTE_FILE.test(f)) || arrows.some(({ from, to }) => folderOf(to) === c && folderOf(from) !== c),
  );
  assert.ok(composed.length >= 15, composed.join(' '));
  assert.deepEqual(
    composed.filter((c) => !files.includes(`${c}/module.ts`)),
    [],
  );
});

test('the tiers and layers are what the rules say', () => {
  assert.equal(layerOf('kernel/ids.ts'), 'neutral');
  assert.equal(layerOf('store/repositories/users.ts'), 'store');
  assert.equal(layerOf('users/service.ts'), 'capability');
  assert.equal(layerOf('users/mfa-routes.ts'), 'http');
  assert.equal(layerOf('http/guard.ts'), 'http');
  assert.equal(layerOf('users/module.ts'), 'module');
  assert.equal(layerOf('cli/main.ts'), 'edge');
  assert.equal(tierOf('cache'), 'platform');
  assert.equal(tierOf('google'), 'capability');
  assert.equal(tierOf('deps.ts'), 'edge');
});
