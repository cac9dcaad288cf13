// The web apps' structure, read from their source (as layers.test.ts reads src/): components reach
// the API only through hooks modules, the service's limits are never copied into web/, and every
// file is named by one scheme. A new file is held to these the day it is added.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from '../src/images/service.ts';
import { TEMPLATE_SOURCE_MAX } from '../src/templates/schemas.ts';
import { loadConfig } from '../src/config.ts';

const WEB = path.join(import.meta.dirname, '..', 'web');

const files = globSync('**/*', { cwd: WEB, withFileTypes: true })
  .filter((d) => d.isFile())
  .map((d) => path.relative(WEB, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
  .filter((f) => !f.startsWith('dist/'))
  .sort();
const sources = files.filter((f) => /\.tsx?$/.test(f) && f !== 'build.ts' && !f.endsWith('.d.ts'));
const read = (f: string) => readFileSync(path.join(WEB, f), 'utf8');

/**
 * Where the API may be called: a feature's hooks module (`<feature>/api.ts`, and the staff app's
 * shared `lib/api.ts`) and the shared API layer (`shared/api/`: the client, the query cache, the
 * reads several features share).
 */
const isHooksModule = (f: string) => f.endsWith('/api.ts') || f.startsWith('shared/api/');

/** Ways to reach the service other than a hooks module's. */
const RAW_ACCESS: [RegExp, string][] = [
  [/\bapi\s*\.\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s*\(/, 'calls the API client'],
  [/\bimport\s*\{[^}]*\bcall\b[^}]*\}\s*from\s*'[^']*api\/client\.ts'/, "imports the client's call()"],
  [/(?<![\w.])fetch\s*\(|\bwindow\.fetch\b|\bXMLHttpRequest\b|\bnew\s+WebSocket\b|\bnavigator\.sendBeacon\b/, 'fetches by itself'],
  [/from\s*'openapi-fetch'|\bcreateApiClient\b/, 'makes its own client'],
  [/\{[^}]*\bapi\b[^}]*\}\s*=\s*use(App|Org)\(\)|\buse(App|Org)\(\)\s*\.\s*api\b/, 'takes the API client from the context'],
];

test('the structure checks see both apps', () => {
  assert.ok(sources.length > 80, `found ${sources.length} source files`);
  for (const f of ['app/users/UsersPage.tsx', 'admin/orgs/OrgList.tsx', 'shared/api/client.ts', 'app/templates/api.ts']) assert.ok(sources.includes(f), f);
});

test('no component calls the API client or fetch: only the hooks modules do', () => {
  const wrong: string[] = [];
  for (const f of sources) {
    if (isHooksModule(f)) continue;
    const text = read(f);
    for (const [pattern, what] of RAW_ACCESS) if (pattern.test(text)) wrong.push(`${f} ${what}`);
  }
  assert.deepEqual(wrong, [], 'move these calls into the feature’s api.ts (or shared/api/resources.ts when features share them)');
});

test('the raw-access check recognises what it forbids', () => {
  // Guards the check itself: each pattern must match what it is meant to catch.
  const samples = [
    "const r = await call(api.GET('/v1/orgs/{orgId}', {}));",
    "import { call } from '../../shared/api/client.ts';",
    "const r = await fetch('/v1/orgs');",
    "import createClient from 'openapi-fetch';",
    'const { api, orgId } = useOrg();',
  ];
  for (const [i, s] of samples.entries()) assert.ok(RAW_ACCESS[i]![0].test(s), s);
  assert.ok(!RAW_ACCESS[2]![0].test('const x = prefetch(a); session.refetch();'), 'a word ending in fetch is not fetch');
});

test('every feature of both apps has its hooks module', () => {
  const features = files.filter((f) => /^(app|admin)\/[^/]+\/route\.ts$/.test(f)).map((f) => path.posix.dirname(f));
  assert.ok(features.length >= 15, `found ${features.length} features`);
  const missing = features.filter((d) => !files.includes(`${d}/api.ts`));
  assert.deepEqual(missing, []);
});

test("the service's limits come from the runtime config, never copied into web/", () => {
  const renderDefault = loadConfig({}).renderLimitBytes;
  const grouped = (n: number, sep: string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const copies = [renderDefault, TEMPLATE_SOURCE_MAX, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE].flatMap((n) => [String(n), grouped(n, '_'), grouped(n, ',')]);
  copies.push('1024 * 1024', '30 * 1024');
  const wrong: string[] = [];
  for (const f of sources) {
    const text = read(f);
    for (const c of new Set(copies)) if (new RegExp(`(?<![\\w.,])${c.replace(/[*.]/g, '\\$&')}(?![\\w,])`).test(text)) wrong.push(`${f}: ${c}`);
  }
  assert.deepEqual(wrong, [], 'read the limit from useLimits() (src/web-apps/runtime-config.ts) instead');
});

test("a form field's length and a list's largest page are the OpenAPI document's (web/shared/api/field-limits.ts), never numbers in web/", () => {
  // The largest pages the lists declare (a `limit: <that>` in web/ copies one).
  const doc = JSON.parse(readFileSync(path.join(WEB, '..', 'docs', 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { parameters?: { name: string; schema?: { maximum?: number } }[] }>>;
  };
  const pages = new Set(
    Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops).flatMap((op) => op.parameters ?? []))
      .filter((p) => p.name === 'limit')
      .map((p) => p.schema?.maximum),
  );
  assert.ok(pages.size > 0 && [...pages].every((n) => typeof n === 'number'), 'the lists declare their largest page');
  const copied = new RegExp(`\\b(maxLength|minLength|max|min)\\s*(=\\s*\\{|:)\\s*\\d{2,}|\\blimit:\\s*(${[...pages].join('|')})\\b`);
  const wrong: string[] = [];
  for (const f of sources) {
    const m = copied.exec(read(f));
    if (m) wrong.push(`${f}: ${m[0]}`);
  }
  assert.deepEqual(wrong, [], "use maxLengthOf('<operationId>', '<field>') or largestPage('<operationId>')");
});

test('one naming scheme: a component file is PascalCase.tsx, every other file kebab-case', () => {
  const wrong = files.filter((f) => {
    const name = path.posix.basename(f);
    if (/^[A-Z][A-Za-z0-9]*\.tsx$/.test(name)) return false;
    return !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)+$/.test(name);
  });
  assert.deepEqual(wrong, []);
  // A PascalCase file holds components (its exports are capitalised, or a default export).
  for (const f of sources.filter((s) => /\/[A-Z][^/]*\.tsx$/.test(s))) {
    assert.match(read(f), /export (default )?function [A-Z]|export const [A-Z]\w* = |export default /, `${f} exports no component`);
  }
});
