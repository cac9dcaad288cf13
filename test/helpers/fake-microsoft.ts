// A fake of Microsoft's identity platform and Graph, started by the tests on localhost and reached
// through MICROSOFT_LOGIN_URL / MICROSOFT_GRAPH_URL as production reaches Microsoft: client
// credentials at `/{tenant}/oauth2/v2.0/token` (a wrong secret refused as Entra does, AADSTS7000215),
// `GET /v1.0/users` in pages with an absolute `@odata.nextLink`, which can answer 429 with
// Retry-After on a chosen page, and a user's photo as Graph serves it: `GET /v1.0/users/{id}/photo`
// (metadata with `@odata.mediaEtag`, `width`, `height`) and `/photo/$value` (the bytes, with their
// content type), 404 ImageNotFound for a user without one.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { GraphUser } from '../../src/microsoft/graph.ts';

export interface FakePhoto {
  data: Buffer;
  contentType: string;
  width: number;
  height: number;
  etag: string;
}

export interface FakeTenant {
  clientId: string;
  clientSecret: string;
  users: GraphUser[];
  /** Photos by user id (setGraphPhoto gives each a new etag). */
  photos?: Map<string, FakePhoto>;
}

/** Sets (or removes) a user's photo in the tenant, with a new `@odata.mediaEtag`. */
export function setGraphPhoto(tenant: FakeTenant, userId: string, photo: Omit<FakePhoto, 'etag'> | undefined): void {
  tenant.photos ??= new Map();
  if (photo) tenant.photos.set(userId, { ...photo, etag: `W/"${randomUUID()}"` });
  else tenant.photos.delete(userId);
}

export interface FakeMicrosoft {
  url: string;
  tenants: Map<string, FakeTenant>;
  /** Users per page (Graph's `$top` is honoured up to this). */
  pageSize: number;
  /** The next `times` requests of page `page` (0-based) answer 429 with `Retry-After: retryAfterS`. */
  throttle: { page: number; times: number; retryAfterS: number } | undefined;
  /** Every request: method, path and query, for the tests to look at. */
  requests: { method: string; path: string; query: URLSearchParams; at: number }[];
  close(): Promise<void>;
}

export function graphUser(overrides: Partial<GraphUser> & { displayName: string }): GraphUser {
  const slug = overrides.displayName.toLowerCase().replace(/[^a-z]+/g, '.');
  return {
    id: randomUUID(),
    mail: `${slug}@contoso-${randomUUID().slice(0, 6)}.test`,
    userPrincipalName: `${slug}@contoso.onmicrosoft.com`,
    jobTitle: null,
    department: null,
    businessPhones: [],
    mobilePhone: null,
    accountEnabled: true,
    ...overrides,
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeMicrosoft(): Promise<FakeMicrosoft> {
  const tokens = new Map<string, string>();
  const fake: FakeMicrosoft = {
    url: '',
    tenants: new Map(),
    pageSize: 2,
    throttle: undefined,
    requests: [],
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', fake.url);
    fake.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, at: Date.now() });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (token && req.method === 'POST') {
      const form = new URLSearchParams(await bodyOf(req));
      const tenantId = decodeURIComponent(token[1]!);
      const tenant = fake.tenants.get(tenantId);
      if (!tenant) return json(400, { error: 'invalid_request', error_description: `AADSTS90002: Tenant '${tenantId}' not found.` });
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== `${fake.url}/.default`) {
        return json(400, { error: 'invalid_scope', error_description: 'AADSTS70011: The provided value for the input parameter scope is not valid.' });
      }
      if (form.get('client_id') !== tenant.clientId) {
        return json(400, {
          error: 'unauthorized_client',
          error_description: `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found in the directory.`,
        });
      }
      if (form.get('client_secret') !== tenant.clientSecret) {
        return json(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
      }
      const accessToken = `fake-${randomUUID()}`;
      tokens.set(accessToken, tenantId);
      return json(200, { token_type: 'Bearer', expires_in: 3599, access_token: accessToken });
    }
    const photo = /^\/v1\.0\/users\/([^/]+)\/photo(\/\$value)?$/.exec(url.pathname);
    if (photo && req.method === 'GET') {
      const tenantId = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const tenant = tenantId ? fake.tenants.get(tenantId) : undefined;
      if (!tenant) return json(401, { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } });
      const userId = decodeURIComponent(photo[1]!);
      const found = tenant.users.some((u) => u.id === userId) ? tenant.photos?.get(userId) : undefined;
      if (!found)
        return json(404, {
          error: { code: 'ImageNotFound', message: "Exception of type 'Microsoft.Fast.Profile.Core.Exception.ImageNotFoundException' was thrown." },
        });
      if (photo[2]) {
        res.writeHead(200, { 'content-type': found.contentType, 'content-length': String(found.data.byteLength), etag: found.etag });
        return res.end(found.data);
      }
      return json(200, {
        '@odata.context': `${fake.url}/v1.0/$metadata#users('${userId}')/photo/$entity`,
        '@odata.mediaContentType': found.contentType,
        '@odata.mediaEtag': found.etag,
        id: `${found.width}X${found.height}`,
        height: found.height,
        width: found.width,
      });
    }
    if (url.pathname === '/v1.0/users' && req.method === 'GET') {
      const tenantId = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const tenant = tenantId ? fake.tenants.get(tenantId) : undefined;
      if (!tenant) return json(401, { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } });
      const top = Math.min(Number(url.searchParams.get('$top') ?? 100), fake.pageSize);
      const offset = Number(url.searchParams.get('$skiptoken') ?? 0);
      const page = Math.floor(offset / top);
      if (fake.throttle && fake.throttle.page === page && fake.throttle.times > 0) {
        fake.throttle.times--;
        return json(429, { error: { code: 'TooManyRequests', message: 'Too many requests.' } }, { 'retry-after': String(fake.throttle.retryAfterS) });
      }
      const select = (url.searchParams.get('$select') ?? '').split(',').filter(Boolean);
      const value = tenant.users
        .slice(offset, offset + top)
        .map((u) => (select.length ? Object.fromEntries(select.map((k) => [k, (u as any)[k] ?? null])) : u));
      const next = offset + top < tenant.users.length ? new URL(url) : undefined;
      next?.searchParams.set('$skiptoken', String(offset + top));
      return json(200, { '@odata.context': `${fake.url}/v1.0/$metadata#users`, value, ...(next ? { '@odata.nextLink': next.toString() } : {}) });
    }
    json(404, { error: { code: 'NotFound', message: `${req.method} ${url.pathname}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
