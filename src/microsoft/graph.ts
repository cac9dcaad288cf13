// Microsoft's two endpoints the Entra sync calls, over fetch: a client-credentials token from the
// identity platform, and the users of the tenant from Graph, page after page (`@odata.nextLink`).
// Two calls with documented shapes: @azure/msal-node and the Graph SDK would add two dependencies
// for what is ~100 lines here. Both base URLs are configurable (the tests' fake answers on them).
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { ConnectorError, type DirectoryPhoto } from '../directory/module.ts';
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from '../images/module.ts';
import { systemClock, type Clock } from '../lib/clock.ts';

export type MicrosoftErrorKind = 'credentials' | 'permission' | 'throttled' | 'unavailable' | 'other';

/** What went wrong, in words an admin can act on; throttled or unavailable is worth another try (`retryAfterMs` when Microsoft said when). */
export class MicrosoftError extends ConnectorError {
  declare readonly kind: MicrosoftErrorKind;
  constructor(kind: MicrosoftErrorKind, message: string, retryAfterMs?: number) {
    super('microsoft', kind, message, { retryable: kind === 'throttled' || kind === 'unavailable', retryAfterMs });
    this.name = 'MicrosoftError';
  }
}

/** One user as Graph answers `GET /v1.0/users` with the fields we select. */
export interface GraphUser {
  id: string;
  mail?: string | null;
  userPrincipalName?: string | null;
  displayName?: string | null;
  jobTitle?: string | null;
  department?: string | null;
  businessPhones?: string[] | null;
  mobilePhone?: string | null;
  accountEnabled?: boolean | null;
}

export interface Credentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

const SELECT = 'id,mail,userPrincipalName,displayName,jobTitle,department,businessPhones,mobilePhone,accountEnabled';
/** A 429 whose Retry-After is this short is waited for within the run; a longer one retries the job later. */
const WAIT_IN_RUN_MAX_MS = 30_000;
const THROTTLE_RETRIES = 3;
const TIMEOUT_MS = 30_000;

function retryAfterMs(res: Response, now: Date): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: string | { code?: string; message?: string }; error_description?: string };
    if (typeof body.error === 'string') return `${body.error}: ${body.error_description ?? ''}`.trim();
    if (body.error) return `${body.error.code ?? ''}: ${body.error.message ?? ''}`.trim();
  } catch {
    // Not JSON: the status says enough.
  }
  return `HTTP ${res.status}`;
}

export function createGraphClient(opts: { loginUrl: string; graphUrl: string; fetch?: typeof fetch; clock?: Clock }) {
  const clock = opts.clock ?? systemClock;
  const doFetch = opts.fetch ?? fetch;
  const graphOrigin = new URL(opts.graphUrl).origin;

  async function call(url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    try {
      return await doFetch(url, { ...init, signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      signal?.throwIfAborted();
      throw new MicrosoftError('unavailable', `Microsoft could not be reached (${(err as Error).message}).`);
    }
  }

  // Tokens for the photos, asked for one user at a time: one token per app, until 5 minutes before it expires.
  const tokens = new LRUCache<string, { token: string; expiresAt: number }>({ max: 1000 });
  async function cachedToken(self: { token(c: Credentials, signal?: AbortSignal): Promise<string> }, c: Credentials, signal?: AbortSignal) {
    const key = `${c.tenantId}\n${c.clientId}\n${c.clientSecret}`;
    const now = clock().getTime();
    const held = tokens.get(key);
    if (held && held.expiresAt > now) return held.token;
    const token = await self.token(c, signal);
    // Graph's tokens live an hour or more; 55 minutes is within any of them.
    tokens.set(key, { token, expiresAt: now + 55 * 60_000 });
    return token;
  }

  return {
    /** A Graph token for the app (client credentials, scope `https://graph.microsoft.com/.default`). */
    async token(c: Credentials, signal?: AbortSignal): Promise<string> {
      const res = await call(
        `${opts.loginUrl}/${encodeURIComponent(c.tenantId)}/oauth2/v2.0/token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_id: c.clientId,
            client_secret: c.clientSecret,
            scope: `${graphOrigin}/.default`,
            grant_type: 'client_credentials',
          }),
        },
        signal,
      );
      if (res.ok) {
        const body = (await res.json()) as { access_token?: string };
        if (body.access_token) return body.access_token;
        throw new MicrosoftError('other', 'Microsoft answered a token request without a token.');
      }
      if (res.status === 429 || res.status >= 500)
        throw new MicrosoftError(
          res.status === 429 ? 'throttled' : 'unavailable',
          `Microsoft's sign-in service answered ${res.status}.`,
          retryAfterMs(res, clock()),
        );
      throw new MicrosoftError(
        'credentials',
        `Microsoft refused the app's credentials (${await errorText(res)}): check the tenant id, the client id and the client secret (and that the secret has not expired).`,
      );
    },

    /**
     * The tenant's users, a page at a time, following `@odata.nextLink` (the reader stops at its page
     * limit, directory/connector.ts); a short 429 is waited out (Retry-After).
     */
    async *userPages(c: Credentials, signal?: AbortSignal): AsyncGenerator<GraphUser[]> {
      const token = await this.token(c, signal);
      let next: string | undefined = `${opts.graphUrl}/v1.0/users?$select=${SELECT}&$top=999`;
      while (next) {
        let res: Response | undefined;
        for (let attempt = 0; ; attempt++) {
          res = await call(next, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, signal);
          if (res.status !== 429 && res.status !== 503) break;
          const wait = retryAfterMs(res, clock()) ?? 2000 * 2 ** attempt;
          if (attempt >= THROTTLE_RETRIES || wait > WAIT_IN_RUN_MAX_MS) {
            throw new MicrosoftError('throttled', `Microsoft Graph is throttling this tenant's requests (${res.status}); the sync tries again later.`, wait);
          }
          await sleep(wait, undefined, { signal });
        }
        if (res.status === 401 || res.status === 403) {
          throw new MicrosoftError(
            'permission',
            `Microsoft Graph refused to list users (${await errorText(res)}): grant the app the application permission User.Read.All, with admin consent.`,
          );
        }
        if (!res.ok)
          throw new MicrosoftError(
            res.status >= 500 ? 'unavailable' : 'other',
            `Microsoft Graph answered ${res.status} listing users (${await errorText(res)}).`,
          );
        const body = (await res.json()) as { value?: GraphUser[]; '@odata.nextLink'?: string };
        next = body['@odata.nextLink'];
        // Graph's links are absolute; one that leaves Graph's origin is not followed with our token.
        if (next && new URL(next).origin !== graphOrigin)
          throw new MicrosoftError('other', 'Microsoft Graph sent a next page on another origin; the sync stopped there.');
        yield body.value ?? [];
      }
    },

    /**
     * A user's photo: its metadata first (`GET /users/{id}/photo`, whose `@odata.mediaEtag` changes
     * with the photo), the bytes (`/photo/$value`) only when the mark is not `known`. 404: no photo.
     * The bytes are read up to the image size cap, and not at all when the metadata says a side is
     * past the image rules.
     */
    async photo(c: Credentials, userId: string, known: string | null, signal?: AbortSignal): Promise<DirectoryPhoto> {
      const headers = { authorization: `Bearer ${await cachedToken(this, c, signal)}` };
      const base = `${opts.graphUrl}/v1.0/users/${encodeURIComponent(userId)}/photo`;
      const meta = await call(base, { headers: { ...headers, accept: 'application/json' } }, signal);
      if (meta.status === 404) return { state: 'none' };
      if (!meta.ok) throw photoError(meta.status, await errorText(meta));
      const about = (await meta.json()) as { '@odata.mediaEtag'?: string; width?: number; height?: number };
      const etag = about['@odata.mediaEtag'] ?? '';
      if (etag !== '' && etag === known) return { state: 'unchanged' };
      if ((about.width ?? 0) > IMAGE_MAX_SIDE || (about.height ?? 0) > IMAGE_MAX_SIDE) return { state: 'refused', etag, reason: 'larger than 2,000 px a side' };
      const res = await call(`${base}/$value`, { headers }, signal);
      if (res.status === 404) return { state: 'none' };
      if (!res.ok) throw photoError(res.status, await errorText(res));
      const data = await readAtMost(res, IMAGE_MAX_BYTES);
      if (!data) return { state: 'refused', etag, reason: 'larger than 1 MB' };
      return { state: 'photo', etag, contentType: (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '', data };
    },
  };
}

function photoError(status: number, said: string): MicrosoftError {
  const kind = status === 429 ? 'throttled' : status >= 500 ? 'unavailable' : status === 401 || status === 403 ? 'permission' : 'other';
  return new MicrosoftError(kind, `Microsoft Graph answered ${status} for a user's photo (${said}).`);
}

/** The body's bytes, or null (the rest left unread) once they pass `max`. */
async function readAtMost(res: Response, max: number): Promise<Buffer | null> {
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of res.body ?? []) {
    total += part.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (total > max) return null;
    parts.push(part);
  }
  return Buffer.concat(parts);
}

export type GraphClient = ReturnType<typeof createGraphClient>;
