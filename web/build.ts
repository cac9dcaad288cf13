// Builds the two web apps (`npm run build:web`; `npm install` runs it through `prepare`) into
// web/dist/{app,admin}, each with relative asset paths, so the server can serve them under any
// APP_URL / ADMIN_URL path (it adds <base href>). Vite does not type-check: `tsc --noEmit` checks
// web/ against the client's types (client/schema.ts, which `prepare` generates first).
import path from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { build, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const WEB = import.meta.dirname;
const OPENAPI = path.join(WEB, '..', 'docs', 'openapi.json');
const APPS = ['app', 'admin'] as const;
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));

for (const name of APPS) {
  if (chosen.length && !chosen.includes(name)) continue;
  await build({
    configFile: false,
    root: path.join(WEB, name),
    base: './',
    logLevel: 'warn',
    plugins: [react(), fieldLimits()],
    build: {
      outDir: path.join(WEB, 'dist', name),
      emptyOutDir: true,
      assetsDir: 'assets',
      // No module-preload polyfill: it would be an inline script, which the CSP refuses.
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
      // The template editor (CodeMirror with Liquid) is one lazy chunk of ~600 KB (200 KB gzipped),
      // loaded only by the editor page; the first load stays small (see the build's log line).
      chunkSizeWarningLimit: 700,
    },
  });
  const sizes = precompress(path.join(WEB, 'dist', name, 'assets'));
  console.log(`web: built ${name} into web/dist/${name} (${sizes})`);
}

/**
 * Writes .br and .gz beside each script and stylesheet: the server sends them to browsers that
 * accept them (@fastify/static `preCompressed`), compressed once here rather than per request.
 * Returns the entry script's size, for the build log (the initial load's budget is 150 KB gzipped).
 */
function precompress(dir: string): string {
  let entry = '';
  for (const file of readdirSync(dir)) {
    if (!/\.(js|css|svg)$/.test(file)) continue;
    const body = readFileSync(path.join(dir, file));
    const gz = gzipSync(body, { level: 9 });
    writeFileSync(path.join(dir, `${file}.gz`), gz);
    writeFileSync(path.join(dir, `${file}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    if (/^index-.*\.js$/.test(file)) entry = `entry script ${(body.length / 1024).toFixed(0)} KB, ${(gz.length / 1024).toFixed(1)} KB gzipped`;
  }
  return entry;
}

interface Limits {
  /** By operationId, then body field. */
  fields: Record<string, Record<string, { minLength?: number; maxLength?: number }>>;
  /** By operationId: the largest `limit` (page size) a list accepts. */
  pages: Record<string, number>;
  /** The design document's bounds (schema `Design`): by block type (or `style`, `design`), then field. */
  design: Record<string, Record<string, Bound>>;
}

interface Bound {
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
}

interface DesignSchema {
  properties: {
    style: { properties: Record<string, Bound> };
    blocks: Bound & { items: { oneOf: { properties: Record<string, Bound & { const?: string }> }[] } };
  };
}

/** The numbers a designer control needs from the `Design` schema (sizes, lengths, how many blocks). */
function designBounds(schema: DesignSchema | undefined): Limits['design'] {
  if (!schema) return {};
  const pick = (props: Record<string, Bound>) => {
    const out: Record<string, Bound> = {};
    for (const [field, p] of Object.entries(props)) {
      const b: Bound = {};
      for (const k of ['minimum', 'maximum', 'maxLength', 'maxItems'] as const) if (p[k] !== undefined) b[k] = p[k];
      if (Object.keys(b).length > 0) out[field] = b;
    }
    return out;
  };
  const design: Limits['design'] = {
    style: pick(schema.properties.style.properties),
    design: { blocks: { ...(schema.properties.blocks.maxItems !== undefined ? { maxItems: schema.properties.blocks.maxItems } : {}) } },
  };
  for (const block of schema.properties.blocks.items.oneOf) {
    const type = block.properties.type?.const;
    if (type) design[type] = pick(block.properties);
  }
  return design;
}

/**
 * `virtual:field-limits`: the length limits of each operation's JSON body fields and the largest
 * page of each list (by operationId), read from the committed OpenAPI document (which a test holds
 * equal to the one the service serves), so a form's `maxLength` or a page size is the service's,
 * never a copy (web/shared/api/field-limits.ts).
 */
function fieldLimits(): Plugin {
  const id = 'virtual:field-limits';
  return {
    name: 'field-limits',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load: (resolved) => (resolved === `\0${id}` ? `export default ${JSON.stringify(readFieldLimits())};` : undefined),
  };
}

interface SchemaObject {
  $ref?: string;
  properties?: Record<string, { minLength?: number; maxLength?: number }>;
}

function readFieldLimits(): Limits {
  const doc = JSON.parse(readFileSync(OPENAPI, 'utf8')) as {
    paths: Record<
      string,
      Record<
        string,
        {
          operationId?: string;
          parameters?: { name: string; in: string; schema?: { maximum?: number } }[];
          requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
        }
      >
    >;
    components: { schemas: Record<string, SchemaObject> };
  };
  const limits: Limits = { fields: {}, pages: {}, design: designBounds(doc.components.schemas.Design as unknown as DesignSchema | undefined) };
  for (const operations of Object.values(doc.paths)) {
    for (const op of Object.values(operations)) {
      const page = op.parameters?.find((p) => p.in === 'query' && p.name === 'limit')?.schema?.maximum;
      if (op.operationId && page !== undefined) limits.pages[op.operationId] = page;
      let schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema?.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()!];
      if (!op.operationId || !schema?.properties) continue;
      for (const [field, p] of Object.entries(schema.properties)) {
        if (p.minLength === undefined && p.maxLength === undefined) continue;
        limits.fields[op.operationId] ??= {};
        limits.fields[op.operationId][field] = {
          ...(p.minLength !== undefined ? { minLength: p.minLength } : {}),
          ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
        };
      }
    }
  }
  return limits;
}
