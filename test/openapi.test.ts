// The OpenAPI document is the contract (docs/api.md, "The API contract"): the served one passes a real
// validator, names every operation, says exactly which operations take credentials, and is the
// committed docs/openapi.json, from which the API client's types are generated.
// The CLI's modules first, as the service started by `npm start` (src/cli/main.ts) imports them: the
// served document must not depend on the order in which modules were first imported (zod's schema
// registry follows it), and tools/openapi.ts imports them in another order.
import '../src/cli/run.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { api } from './helpers/api.ts';
import { DOCUMENT_BASE_URL, serialise } from '../tools/openapi.ts';
import { PIXEL } from '../src/tracking/routes.ts';
import { compileAllSerializers } from '../src/http/serializer.ts';

const ROOT = path.join(import.meta.dirname, '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Json = Record<string, any>;
interface Operation {
  method: string;
  route: string;
  op: Json;
}

function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([route, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, route, op: item[method] as Json })),
  );
}

/** Every `$ref` of the document, with where it was found. */
function refsOf(node: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => refsOf(n, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refsOf(v, `${at}/${k}`)));
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!node || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

describe('the OpenAPI document', () => {
  let server: TestServer;
  let org: TestOrg;
  let doc: Json;

  before(async () => {
    server = await startServer();
    org = await createOrg(server);
    const res = await server.request('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });
  after(() => server.close());

  test('passes @apidevtools/swagger-parser: validated and fully dereferenced', async () => {
    // The parser changes the object it is given: each call gets its own copy.
    await SwaggerParser.validate(structuredClone(doc) as never);
    const dereferenced = (await SwaggerParser.dereference(structuredClone(doc) as never)) as Json;
    assert.deepEqual(refsOf(dereferenced), [], 'no $ref left once dereferenced');
    assert.ok(Object.keys(doc.components.schemas).length >= 8, 'components.schemas is filled');
  });

  test("every route's response schemas compile to serializers (they are compiled at a route's first answer)", () => {
    const count = compileAllSerializers();
    assert.ok(count > 50, `${count} response schemas`);
  });

  test('every $ref points at something in the document', () => {
    const refs = refsOf(doc);
    assert.ok(refs.length > 50, `${refs.length} refs`);
    const dangling = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    assert.deepEqual(dangling, []);
  });

  test('every operation has a readable, unique operationId', () => {
    const ids = operationsOf(doc).map(({ method, route, op }) => {
      assert.match(op.operationId ?? '', /^[a-z][a-zA-Z]+$/, `${method.toUpperCase()} ${route}: operationId ${op.operationId}`);
      return op.operationId as string;
    });
    assert.equal(new Set(ids).size, ids.length, `duplicates among ${ids.join(', ')}`);
    for (const expected of ['getOrg', 'listUsers', 'createUser', 'renderSignature', 'getTrackingPixel', 'receivePaymentProviderEvent']) {
      assert.ok(ids.includes(expected), expected);
    }
  });

  test('the sign-in pages and the identity provider are not API operations', () => {
    const authPath = new URL(server.deps.config.authUrl).pathname;
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith(authPath)),
      [],
    );
    assert.ok(!doc.paths['/v1/openapi.json']);
  });

  test('security is declared exactly on the operations that refuse a request without credentials', async () => {
    const schemes = Object.keys(doc.components.securitySchemes).sort();
    assert.deepEqual(schemes, ['addinKey', 'apiKey', 'bearer']);
    let secured = 0;
    for (const { method, route, op } of operationsOf(doc)) {
      const name = `${method.toUpperCase()} ${route}`;
      const path = route.replace(/\{orgId\}/, org.orgId).replace(/\{(\w+)\}/g, () => randomUUID());
      const body = ['post', 'patch', 'put'].includes(method) ? {} : undefined;
      const res = await server.request(method.toUpperCase(), path, { body });
      if (op.security) {
        secured++;
        assert.equal(res.status, 401, `${name} declares security but answered ${res.status} without credentials`);
        const names = (op.security as Json[]).flatMap((s) => Object.keys(s)).sort();
        // Staff routes take a staff ID token only; org routes an ID token or an API key; the Outlook add-in its org's add-in key.
        const expected = route.startsWith('/v1/admin/') ? ['bearer'] : route === '/v1/addin/signature' ? ['addinKey'] : ['apiKey', 'bearer'];
        assert.deepEqual(names, expected, name);
        assert.ok(op.responses['401'], `${name} documents its 401`);
      } else if (route === '/v1/webhooks/payment-provider') {
        // Proven by its signature, not by credentials: 401 without one, and the header is documented.
        assert.equal(res.status, 401, name);
        const headers = (op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
        assert.deepEqual(headers.sort(), ['provider-signature', 'stripe-signature']);
      } else {
        assert.notEqual(res.status, 401, `${name} declares no security but answered 401 without credentials`);
      }
    }
    assert.ok(secured >= 25, `${secured} secured operations`);
  });

  test('the pixel answers image/gif; the webhook documents its body; every answer its X-Correlation-Id; 429 and 503 their Retry-After', () => {
    const pixel = doc.paths['/v1/p/{userId}'].get;
    assert.deepEqual(Object.keys(pixel.responses['200'].content), ['image/gif']);
    const webhook = doc.paths['/v1/webhooks/payment-provider'].post;
    assert.ok(webhook.requestBody.content['application/json'].schema);
    // A body the route accepts absent is optional (render's `{templateId}`); others are required.
    assert.equal(doc.paths['/v1/orgs/{orgId}/render/{userId}'].post.requestBody.required, false);
    assert.equal(doc.paths['/v1/orgs/{orgId}/users'].post.requestBody.required, true);
    for (const { method, route, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const at = `${method.toUpperCase()} ${route} ${status}`;
        assert.ok(response.headers?.['X-Correlation-Id'], `${at}: X-Correlation-Id`);
        if (status === '429' || status === '503') assert.ok(response.headers['Retry-After'], `${at}: Retry-After`);
        assert.notEqual(response.description, 'Default Response', `${at}: a description`);
      }
      if (op.security) assert.ok(op.responses['429'] && op.responses['503'], `${method} ${route}: 429 and 503`);
    }
  });

  test('every JSON request body and response has an example, with the properties its schema requires and no others', async () => {
    const deref = (await SwaggerParser.dereference(structuredClone(doc) as never)) as Json;
    const problems: string[] = [];
    /** An object example against its object schema: required present, nothing undeclared; recursing into objects and arrays. */
    const check = (schema: Json, example: unknown, at: string): void => {
      if (schema.anyOf) {
        const branch = (schema.anyOf as Json[]).find((s) => (example === null ? s.type === 'null' : s.type !== 'null'));
        if (branch) check(branch, example, at);
        return;
      }
      if (schema.type === 'array' && Array.isArray(example)) {
        for (const [i, e] of example.entries()) check(schema.items ?? {}, e, `${at}[${i}]`);
        return;
      }
      if (schema.type !== 'object' || !schema.properties || !example || typeof example !== 'object') return;
      const keys = Object.keys(example);
      for (const r of schema.required ?? []) if (!keys.includes(r)) problems.push(`${at}: example lacks ${r}`);
      for (const k of keys) {
        if (!(k in schema.properties)) problems.push(`${at}: example has ${k}, which the schema does not declare`);
        else check(schema.properties[k], (example as Json)[k], `${at}.${k}`);
      }
    };
    let checked = 0;
    for (const { method, route, op } of operationsOf(deref)) {
      const media: [string, Json][] = [];
      const body = op.requestBody?.content?.['application/json'];
      if (body) media.push([`${method.toUpperCase()} ${route} request`, body]);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const json = response.content?.['application/json'];
        if (json) media.push([`${method.toUpperCase()} ${route} ${status}`, json]);
      }
      for (const [at, m] of media) {
        const examples =
          m.example !== undefined ? [m.example] : ((m.schema.examples ?? m.schema.anyOf?.find((s: Json) => s.examples)?.examples ?? []) as unknown[]);
        if (examples.length === 0) problems.push(`${at}: no example (add .meta({ examples: [...] }) to its zod schema)`);
        for (const example of examples) check(m.schema, example, at);
        checked++;
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 150, `${checked} bodies checked`);
  });

  test('the 400 and 404 examples of the org routes are what the service answers to that request', async () => {
    const user = await createUser(server, org);
    const template = await createTemplate(server, org);
    const ids: Record<string, string> = { orgId: org.orgId, userId: user.userId, templateId: template.templateId, keyId: org.keyId };
    const example = (op: Json, status: string) => op.responses[status]?.content?.['application/json']?.example?.error as Json | undefined;
    let compared = 0;
    for (const { method, route, op } of operationsOf(doc)) {
      if (!route.startsWith('/v1/orgs/')) continue;
      const name = `${method.toUpperCase()} ${route}`;
      const bad = example(op, '400');
      const field = bad?.details?.field as string | undefined;
      // The request each example describes: a body without its first required field, or a
      // malformed id in the path. Both are refused before anything changes.
      let path: string | undefined;
      let body: unknown;
      if (field?.startsWith('body.')) [path, body] = [route.replace(/\{(\w+)\}/g, (_, p: string) => ids[p] ?? randomUUID()), {}];
      else if (field?.startsWith('params.'))
        path = route.replace(/\{(\w+)\}/g, (_, p: string) => (`params.${p}` === field ? 'not-a-uuid' : (ids[p] ?? randomUUID())));
      if (path) {
        const res = await server.request(method.toUpperCase(), path, { key: org.key, body });
        assert.equal(res.status, 400, `${name}: ${res.text}`);
        assert.equal(res.body.error.message, bad?.message, name);
        assert.equal(res.body.error.details.field, field, name);
        compared++;
      }
      const missing = example(op, '404');
      const last = [...route.matchAll(/\{(\w+)\}/g)].at(-1)?.[1];
      if (missing && (method === 'get' || method === 'delete') && last && last !== 'orgId') {
        const res = await server.request(
          method.toUpperCase(),
          route.replace(/\{(\w+)\}/g, (_, p: string) => (p === last ? randomUUID() : (ids[p] ?? randomUUID()))),
          { key: org.key },
        );
        assert.equal(res.status, 404, `${name}: ${res.text}`);
        assert.equal(res.body.error.message, missing.message, name);
        compared++;
      }
    }
    assert.ok(compared >= 15, `${compared} examples compared`);
  });

  test('ETag and If-Match are documented where the routes use them, and the routes send what is documented', async () => {
    const user = await createUser(server, org);
    const template = await createTemplate(server, org);
    const client = api(server, org);
    const reads = [
      await client.GET('/v1/orgs/{orgId}', { params: { path: { orgId: org.orgId } } }),
      await client.GET('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId: org.orgId, userId: user.userId } } }),
      await client.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId: org.orgId, templateId: template.templateId } } }),
    ];
    for (const read of reads) {
      assert.equal(read.response.status, 200);
      assert.equal(read.response.headers.get('etag'), `"${(read.data as { version: number }).version}"`);
    }
    for (const route of ['/v1/orgs/{orgId}', '/v1/orgs/{orgId}/users/{userId}', '/v1/orgs/{orgId}/templates/{templateId}']) {
      assert.ok(doc.paths[route].get.responses['200'].headers.ETag, `${route} GET: ETag`);
      assert.ok(doc.paths[route].patch.responses['200'].headers.ETag, `${route} PATCH: ETag`);
      const params = doc.paths[route].patch.parameters.map((p: Json) => p.$ref ?? p.name);
      assert.ok(params.includes('#/components/parameters/IfMatch'), `${route} PATCH: If-Match`);
    }
    // A list answers no ETag, and documents none.
    const list = await client.GET('/v1/orgs/{orgId}/users', { params: { path: { orgId: org.orgId } } });
    assert.equal(list.response.headers.get('etag'), null);
    assert.equal(doc.paths['/v1/orgs/{orgId}/users'].get.responses['200'].headers.ETag, undefined);
    // Every GET of the org and public routes that answers 200 here sends an ETag exactly when its
    // document says so.
    const upload = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/gif' },
      body: PIXEL,
    });
    const ids: Record<string, string> = { orgId: org.orgId, userId: user.userId, templateId: template.templateId, keyId: org.keyId };
    assert.equal(upload.status, 201, await upload.clone().text());
    ids.imageId = ((await upload.json()) as { imageId: string }).imageId;
    let checked = 0;
    for (const { method, route, op } of operationsOf(doc)) {
      if (method !== 'get' || !(route.startsWith('/v1/orgs/') || route.startsWith('/v1/images/'))) continue;
      const path = route.replace(/\{(\w+)\}/g, (_, p: string) => ids[p] ?? randomUUID());
      const res = await server.request('GET', path, { key: org.key });
      if (res.status !== 200) continue;
      const documented = Boolean(op.responses['200'].headers?.ETag);
      assert.equal(res.headers.get('etag') !== null, documented, `GET ${route}: ETag ${documented ? 'documented but not sent' : 'sent but not documented'}`);
      checked++;
    }
    assert.ok(checked >= 8, `${checked} reads checked`);
  });

  test('is the committed docs/openapi.json (run `npm run openapi` after changing a route)', () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as Json;
    // The one part that follows the configuration: the server is BASE_URL, which the script fixes.
    assert.deepEqual(doc.servers, [{ url: server.deps.config.baseUrl }]);
    assert.deepEqual(committed.servers, [{ url: DOCUMENT_BASE_URL }]);
    const served = { ...doc, servers: committed.servers };
    assert.equal(serialise(served), serialise(committed), 'docs/openapi.json is stale: run `npm run openapi` and commit it');
  });

  test('lists its component schemas by name', () => {
    const names = Object.keys(doc.components.schemas);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

  test("the client's types are what openapi-typescript makes of docs/openapi.json", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-types-'));
    try {
      const out = path.join(dir, 'schema.ts');
      const cli = path.join(ROOT, 'tools/openapi-types/node_modules/openapi-typescript/bin/cli.js');
      const run = spawnSync(process.execPath, [cli, path.join(ROOT, 'docs/openapi.json'), '--output', out], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(
        readFileSync(path.join(ROOT, 'client/schema.ts'), 'utf8'),
        readFileSync(out, 'utf8'),
        'client/schema.ts is stale: run `npm run openapi:types` (or `npm install`)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
