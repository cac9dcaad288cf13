// The common security cases, run on every org route: a route in the OpenAPI document that has no
// row in the table fails the catalog test, so no route can skip them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.ts';
import type { TestOrg } from './fixtures.ts';

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as the OpenAPI document writes it, e.g. `/v1/orgs/{orgId}/users/{userId}`. */
  route: string;
  /** A body that would be valid, so only credentials decide the answer. */
  body?: unknown;
  /** The least role of the org that may call the route (kernel/policy.ts); one below it gets 403. */
  minRole: 'member' | 'admin' | 'owner';
}

const BELOW = { member: undefined, admin: 'member', owner: 'admin' } as const;

export function fillPath(route: string, org: TestOrg, ids: Record<string, string> = {}): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'orgId' ? org.orgId : (ids[name] ?? randomUUID())));
}

export function openApiOperations(doc: { paths: Record<string, Record<string, unknown>> }, prefix: string): string[] {
  const ops: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith(prefix)) continue;
    for (const method of Object.keys(item)) ops.push(`${method.toUpperCase()} ${path}`);
  }
  return ops.sort();
}

/** Credentials that must all be refused with 401, made fresh against a real server. */
export async function refusedCredentials(server: TestServer, org: TestOrg) {
  const revoked = await server.request('POST', `/v1/orgs/${org.orgId}/api-keys`, { key: org.key, body: { name: 'to revoke' } });
  assert.equal(revoked.status, 201);
  const del = await server.request('DELETE', `/v1/orgs/${org.orgId}/api-keys/${revoked.body.keyId}`, { key: org.key });
  assert.equal(del.status, 200);
  const random43 = 'A'.repeat(43);
  const cases: { name: string; headers: Record<string, string> }[] = [
    { name: 'no credentials', headers: {} },
    { name: 'malformed key', headers: { 'x-api-key': 'svc_dev_short' } },
    { name: 'unknown key', headers: { 'x-api-key': `svc_${server.deps.config.stage}_${random43}` } },
    { name: 'key of another stage', headers: { 'x-api-key': `svc_prod_${org.key.split('_').slice(2).join('_')}` } },
    { name: 'revoked key', headers: { 'x-api-key': revoked.body.key as string } },
    { name: 'garbage bearer', headers: { authorization: 'Bearer not-a-token' } },
    { name: 'a JWT-looking bearer that no issuer signed', headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' } },
    { name: 'basic auth', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } },
  ];
  return cases;
}

export async function assertSecurityCases(server: TestServer, cases: RouteCase[], org: TestOrg, other: TestOrg) {
  const refused = await refusedCredentials(server, org);
  for (const c of cases) {
    const path = fillPath(c.route, org);
    for (const cred of refused) {
      const res = await server.request(c.method, path, { headers: cred.headers, ...(c.body ? { body: c.body } : {}) });
      assert.equal(res.status, 401, `${c.method} ${c.route} with ${cred.name}: ${res.status} ${res.text}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.ok(res.body.error.correlationId);
    }
    // Another org's valid key: 403, and the answer reveals nothing of this org.
    const foreign = await server.request(c.method, path, { key: other.key, ...(c.body ? { body: c.body } : {}) });
    assert.equal(foreign.status, 403, `${c.method} ${c.route} with another org's key: ${foreign.status} ${foreign.text}`);
    assert.equal(foreign.body.error.code, 'FORBIDDEN');
  }
}

/**
 * The minimum role of every route: an ID token of the role just below it gets 403 FORBIDDEN; an
 * ID token of the role itself is let past authorization (whatever the handler answers next).
 */
export async function assertRoleCases(server: TestServer, cases: RouteCase[], org: TestOrg, tokens: Record<'member' | 'admin' | 'owner', string>) {
  let refusals = 0;
  for (const c of cases) {
    const path = fillPath(c.route, org);
    const below = BELOW[c.minRole];
    if (below) {
      const res = await server.request(c.method, path, { token: tokens[below], ...(c.body ? { body: c.body } : {}) });
      assert.equal(res.status, 403, `${c.method} ${c.route} with a ${below}'s ID token: ${res.status} ${res.text}`);
      assert.equal(res.body.error.code, 'FORBIDDEN');
      assert.match(res.body.error.message, new RegExp(`${c.minRole} role`), `${c.method} ${c.route}: refused for its role`);
      refusals++;
    }
    const allowed = await server.request(c.method, path, { token: tokens[c.minRole], ...(c.body ? { body: c.body } : {}) });
    assert.ok(
      allowed.status < 500 && ![401, 403].includes(allowed.status),
      `${c.method} ${c.route} with a ${c.minRole}'s ID token: ${allowed.status} ${allowed.text}`,
    );
  }
  return refusals;
}

/** The one write an org past its grace period may still make: a leaked key must always be revocable. */
const UNGATED_WRITES = new Set(['DELETE /v1/orgs/{orgId}/api-keys/{keyId}']);
/** Reads that render a signature are gated like writes. */
const GATED_READS = new Set(['GET /v1/orgs/{orgId}/users/{userId}/signature']);

/** Whether the billing gate refuses this route to an org past its grace period (402). */
export function billingGated(c: RouteCase): boolean {
  const op = `${c.method} ${c.route}`;
  return GATED_READS.has(op) || (c.method !== 'GET' && !UNGATED_WRITES.has(op));
}

/**
 * The billing gate on every route, for an org past its grace period: each write (and each read
 * that renders) answers 402 PAYMENT_REQUIRED naming what blocks it, whatever its body, since the
 * gate comes before validation; every other route is let past it. `ids` fills path ids with rows
 * that exist, so a route let past the gate answers as it would for a paying org.
 */
export async function assertBillingGate(server: TestServer, cases: RouteCase[], org: TestOrg, ids: Record<string, string>): Promise<number> {
  let gated = 0;
  const wrong: string[] = [];
  for (const c of cases) {
    const res = await server.request(c.method, fillPath(c.route, org, ids), { key: org.key, ...(c.body ? { body: c.body } : {}) });
    const label = `${c.method} ${c.route}: ${res.status} ${res.text.slice(0, 160)}`;
    if (billingGated(c)) {
      gated++;
      if (res.status !== 402 || res.body.error?.code !== 'PAYMENT_REQUIRED' || !res.body.error.correlationId) wrong.push(`expected 402, got ${label}`);
    } else if (res.status === 402) {
      wrong.push(`expected no 402, got ${label}`);
    }
  }
  assert.deepEqual(wrong, []);
  return gated;
}
