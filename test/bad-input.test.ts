// Issue 13.6: bad input is a 400 in the envelope naming the field, and changes nothing; never a 500.
// The walk below covers every route of the OpenAPI document, so a route or field added later is
// tried the day it appears.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestResponse, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { staffToken as mintStaffToken } from './helpers/payments.ts';

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[]; enum?: unknown[] };
type Operation = {
  parameters?: { in: string; name: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
};

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
const b64 = (s: string) => Buffer.from(s).toString('base64url');

const isString = (s: JsonSchema): boolean => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')) || (s.anyOf ?? []).some(isString);
const isNumber = (s: JsonSchema): boolean => s.type === 'integer' || s.type === 'number' || (s.anyOf ?? []).some(isNumber);

/** Asserts a 400 in the envelope whose issues name `field`. */
function assertRefused(res: TestResponse, field: string, what: string) {
  assert.equal(res.status, 400, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.equal(res.body.error.code, 'BAD_REQUEST', what);
  assert.ok(res.body.error.correlationId, what);
  const fields = [res.body.error.details?.field, ...(res.body.error.details?.issues ?? []).map((i: { field: string }) => i.field)];
  assert.ok(fields.includes(field), `${what}: names ${JSON.stringify(fields)}, not ${field}`);
}

describe('bad input is a 400 naming the field, never a 500', () => {
  let server: TestServer;
  let org: TestOrg;
  let staffToken: string;
  let addinKey: string;
  let doc: { paths: Record<string, Record<string, Operation>> };
  const ids: Record<string, string> = {};

  before(async () => {
    // Private webhook URLs allowed: the endpoint below is on this machine, never elsewhere.
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    org = await createOrg(server);
    ids.orgId = org.orgId;
    ids.userId = (await createUser(server, org)).userId;
    ids.templateId = (await createTemplate(server, org)).templateId;
    ids.keyId = org.keyId;
    ids.eventId = 'evt_unknown';
    // An endpoint of the org (its deliveries list is one of the lists), at a port nothing listens on.
    const endpoint = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, {
      key: org.key,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['deployment.failed'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    ids.endpointId = endpoint.body.endpointId;
    staffToken = await mintStaffToken(server);
    addinKey = (await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key })).body.addinKey;
    doc = (await server.request('GET', '/v1/openapi.json')).body;
  });
  after(() => server.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([route, item]) =>
      Object.entries(item)
        // The webhook's body is the provider's, checked by its signature, and the sign-in pages
        // answer HTML: both have tests of their own.
        .filter(([, op]) => route.startsWith('/v1/') && !route.startsWith('/v1/webhooks/') && typeof op === 'object')
        .map(([method, op]) => ({ method: method.toUpperCase(), route, op })),
    );
  const credentials = (route: string) =>
    route.startsWith('/v1/admin/') ? { token: staffToken } : route === '/v1/addin/signature' ? { headers: { 'x-addin-key': addinKey } } : { key: org.key };
  // A wildcard (`{*}`, the click route's token) gets a well-formed value of its own.
  const fill = (route: string, override: Record<string, string> = {}) =>
    route.replace(/\{(\w+|\*)\}/g, (_, name: string) => override[name] ?? ids[name] ?? (name === '*' ? 'abc' : randomUUID()));

  test('NUL and unpaired surrogates in every string of every body: 400 naming the field', async () => {
    let tried = 0;
    for (const { method, route, op } of operations()) {
      const schema = op.requestBody?.content['application/json']?.schema;
      for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
        if (!isString(prop)) continue;
        for (const bad of [NUL, `  ${NUL}  `, LONE_SURROGATE]) {
          const res = await server.request(method, fill(route), { ...credentials(route), body: { [name]: bad } });
          assertRefused(res, `body.${name}`, `${method} ${route} body.${name}=${JSON.stringify(bad)}`);
          tried++;
        }
      }
    }
    // users (2 × 7), templates (2 × 3), preview (3), org, API key, TOTP code: the walk reached them.
    assert.ok(tried >= 3 * 26, `only ${tried} cases`);
  });

  test('NUL in every string query parameter and path parameter: 400 naming it', async () => {
    let tried = 0;
    for (const { method, route, op } of operations()) {
      for (const param of op.parameters ?? []) {
        if (param.in === 'query' && isString(param.schema)) {
          const res = await server.request(method, `${fill(route)}?${param.name}=a%00b`, credentials(route));
          assertRefused(res, `query.${param.name}`, `${method} ${route}?${param.name}=a%00b`);
          tried++;
        }
        if (param.in === 'path' && route !== '/v1/p/{userId}') {
          const res = await server.request(method, fill(route, { [param.name]: 'a%00b' }), credentials(route));
          if (param.name === 'orgId' && !route.startsWith('/v1/admin/')) {
            // Authorization comes before validation (docs/architecture.md, "A request's path"): not the caller's org (staff may
            // act on every org, so their routes validate it).
            assert.equal(res.status, 403, `${method} ${route} with orgId=a%00b: ${res.status} ${res.text}`);
            continue;
          }
          assert.equal(res.status, 400, `${method} ${route} with ${param.name}=a%00b: ${res.status} ${res.text}`);
          assert.equal(res.body?.error.details.field, `params.${param.name}`, `${method} ${route}: ${res.text}`);
          tried++;
        }
      }
    }
    assert.ok(tried >= 20, `only ${tried} cases`);
    // The pixel answers its image for any id, a NUL included.
    assert.equal((await server.request('GET', '/v1/p/a%00b')).status, 200);
  });

  test('hostile JSON on every route with a body: never a 500, refusals in the envelope', async () => {
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const bodies = [
      '{"__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"isAdmin":true}}}',
      nest(100_000),
      `{"name":${nest(5_000)}}`,
      '{"version":1e400,"name":"x"}',
      '{"version":2147483648,"name":"x"}',
      '{"version":1.5,"name":"x"}',
      '"a string"',
      'null',
      '[]',
      '12',
      '{"\\u0000":"x"}',
      '{"name":"\\ud800"}',
      '{"name":"x"',
    ];
    let tried = 0;
    for (const { method, route, op } of operations()) {
      if (!op.requestBody) continue;
      for (const rawBody of bodies) {
        const res = await server.request(method, fill(route), { ...credentials(route), rawBody });
        const what = `${method} ${route} ${rawBody.slice(0, 40)}: ${res.status} ${res.text.slice(0, 200)}`;
        assert.ok(res.status < 500, what);
        if (rawBody === '{"name":"x"') assert.equal(res.status, 400, `truncated JSON is refused: ${what}`);
        // (The render route takes `null` for "no options".)
        if (res.status >= 400) assert.ok(res.body?.error?.correlationId, what);
        tried++;
      }
    }
    // The server runs in this process: a polluted prototype would show here.
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined, 'Object.prototype polluted');
    assert.ok(tried >= 8 * bodies.length, `only ${tried} cases`);
  });

  test('numbers out of range in every numeric query parameter: 400 naming it', async () => {
    let tried = 0;
    for (const { method, route, op } of operations()) {
      for (const param of op.parameters ?? []) {
        if (param.in !== 'query' || !isNumber(param.schema)) continue;
        for (const bad of ['99999999999999999999', '1e400', '-1', '1.5', 'NaN', '', 'abc']) {
          const res = await server.request(method, `${fill(route)}?${param.name}=${bad}`, credentials(route));
          assertRefused(res, `query.${param.name}`, `${method} ${route}?${param.name}=${bad}`);
          tried++;
        }
      }
    }
    assert.ok(tried >= 5 * 7, `only ${tried} cases`);
  });

  test('malformed cursors on every list: 400 naming query.cursor', async () => {
    const bad = [
      b64('p:9999999999999999999'), // past bigint
      b64('p:9223372036854775808'), // one past bigint
      b64('p:-1'),
      b64('p:'),
      b64('p:1e5'),
      b64('p:1 '),
      b64('x:1'),
      `${b64('p:1')}!!`, // characters the decoder would skip
      `${b64('p:1')}=`,
      'nonsense',
      '',
    ];
    let lists = 0;
    for (const { method, route, op } of operations()) {
      if (!(op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor')) continue;
      lists++;
      for (const cursor of bad) {
        const res = await server.request(method, `${fill(route)}?cursor=${encodeURIComponent(cursor)}`, credentials(route));
        if (cursor === '' && res.status === 200) continue; // an empty cursor may read as none
        assertRefused(res, 'query.cursor', `${method} ${route} cursor=${JSON.stringify(cursor)}`);
      }
      // The largest position there is reads a page (empty, or everything on a newest-first list).
      // The staff event list has a cursor of its own kind.
      if (route.startsWith('/v1/admin/')) continue;
      const last = await server.request(method, `${fill(route)}?cursor=${b64('p:9223372036854775807')}`, credentials(route));
      assert.equal(last.status, 200, `${route}: ${last.text}`);
    }
    assert.ok(lists >= 4, `only ${lists} lists`);
  });

  test('opens: days PostgreSQL cannot hold are a 400; the edges of what it holds answer', async () => {
    const opens = `/v1/orgs/${org.orgId}/opens`;
    for (const q of ['from=0000-01-01&to=0000-01-05', 'from=0000-12-31', 'to=0000-01-05', 'from=10000-01-01', 'from=2026-02-30', 'from=-0001-01-01']) {
      const res = await server.request('GET', `${opens}?${q}`, { key: org.key });
      assertRefused(res, q.startsWith('to') ? 'query.to' : 'query.from', `opens?${q}`);
    }
    for (const q of ['from=0001-01-01&to=0001-01-05', 'to=0001-01-05', 'from=9999-12-01&to=9999-12-31']) {
      const res = await server.request('GET', `${opens}?${q}`, { key: org.key });
      assert.equal(res.status, 200, `opens?${q}: ${res.text}`);
      assert.deepEqual(res.body.items, []);
    }
  });

  test('the audit filters with NUL: 400, and a refused write changed nothing', async () => {
    const audit = `/v1/orgs/${org.orgId}/audit`;
    assertRefused(await server.request('GET', `${audit}?action=%00`, { key: org.key }), 'query.action', 'action=%00');
    assertRefused(await server.request('GET', `${audit}?targetId=a%00b`, { key: org.key }), 'query.targetId', 'targetId=a%00b');
    const before = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
    const trail = (await server.request('GET', `${audit}?limit=200`, { key: org.key })).body.items.length;
    assertRefused(
      await server.request('PATCH', `/v1/orgs/${org.orgId}`, { key: org.key, body: { version: before.body.version, name: NUL } }),
      'body.name',
      'org name',
    );
    assertRefused(
      await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: { email: 'nul@example.test', name: NUL } }),
      'body.name',
      'user name',
    );
    const afterwards = await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key });
    assert.deepEqual(afterwards.body, before.body);
    assert.equal((await server.request('GET', `${audit}?limit=200`, { key: org.key })).body.items.length, trail);
  });
});
