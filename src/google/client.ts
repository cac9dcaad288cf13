// Google's three endpoints, spoken directly with fetch and jose (about forty lines
// in all): the googleapis client libraries would add megabytes for three calls, and
// their retry and token caching are not the ones we need (one token per subject, the job queue's
// retries on top of a few quick ones here).
//
// - Tokens: a JWT bearer assertion (RS256; iss = client_email, sub = the user acted for, scope,
//   aud = the token URL, exp = iat + 3600) exchanged at the token URL; one token per (key, subject,
//   scope), kept until 5 minutes before it expires; concurrent callers share one exchange.
// - Retries: 429 and 5xx (and 403 rateLimitExceeded, which Gmail also uses) are retried a few times
//   with exponential backoff and jitter, honouring Retry-After; past that a `transient` GoogleError
//   carries the wait for the job queue's own retry.
// - Quota: Gmail's sendAs.update costs 100 of a project's 1,200,000 units a minute, so at most
//   12,000 updates a minute (200 a second) per service account leave this instance. (The per-user
//   quota, 15,000 units a minute, allows 150 updates a minute per user; a push updates each once.)
import { setTimeout as sleep } from 'node:timers/promises';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { take, type BucketState } from '../ratelimit/token-bucket.ts';
import { apiError, GoogleError, SCOPES, tokenError } from './errors.ts';
import { millisOf, systemClock } from '../lib/clock.ts';

export interface GoogleEndpoints {
  tokenUrl: string;
  adminApiUrl: string;
  gmailApiUrl: string;
}

export interface RetryPolicy {
  /** Tries of one request, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export interface GoogleCredentials {
  clientEmail: string;
  clientId: string;
  privateKeyId: string;
  privateKey: string;
}

/** A user of the Directory API (the fields the sync maps). */
export interface GoogleUser {
  id: string;
  primaryEmail: string;
  name?: { fullName?: string; givenName?: string; familyName?: string };
  suspended?: boolean;
  archived?: boolean;
  organizations?: { title?: string; department?: string; primary?: boolean }[];
  phones?: { value?: string; type?: string; primary?: boolean }[];
  /** Set when the user has a photo; its etag changes with the photo (users.photos.get fetches it). */
  thumbnailPhotoUrl?: string;
  thumbnailPhotoEtag?: string;
}

/** A user's photo as users.photos.get answers it: `photoData` is web-safe base64. */
export interface GooglePhoto {
  photoData?: string;
  mimeType?: string;
  etag?: string;
  width?: number;
  height?: number;
}

export type RequestOutcome = 'ok' | 'retried' | 'error';

export interface GoogleClientOptions {
  endpoints: GoogleEndpoints;
  retry?: Partial<RetryPolicy>;
  /** PATCHes per second per service account (Gmail's project quota: 200). */
  patchesPerSecond?: number;
  /** Seconds before expiry a cached token is no longer used. */
  tokenMarginS?: number;
  requestTimeoutMs?: number;
  clock?: () => number;
  /** Each request to Google and how it ended (the `/metrics` counter). */
  onRequest?: (api: 'token' | 'directory' | 'gmail', outcome: RequestOutcome) => void;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 1000, maxMs: 30_000 };
const TRANSIENT = new Set([429, 500, 502, 503, 504]);

export function createGoogleClient(options: GoogleClientOptions) {
  const { endpoints } = options;
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const now = options.clock ?? millisOf(systemClock);
  const marginMs = (options.tokenMarginS ?? 300) * 1000;
  const patchRate = options.patchesPerSecond ?? 200;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const tokens = new LRUCache<string, { token: string; expiresAt: number }>({ max: 100_000 });
  const exchanges = new Map<string, Promise<string>>();
  const keys = new LRUCache<string, Promise<CryptoKey>>({ max: 1000 });
  const buckets = new Map<string, BucketState>();

  const keyOf = (c: GoogleCredentials) => {
    const id = `${c.clientEmail}:${c.privateKeyId}`;
    let key = keys.get(id);
    if (!key) {
      key = importPKCS8(c.privateKey, 'RS256') as Promise<CryptoKey>;
      keys.set(id, key);
    }
    return key;
  };

  /** Waits for one of the service account's Gmail updates a second. */
  async function pace(clientEmail: string, signal: AbortSignal | undefined) {
    for (;;) {
      const { state, decision } = take(buckets.get(clientEmail), { rate: patchRate, burst: patchRate }, now());
      buckets.set(clientEmail, state);
      if (decision.allowed) return;
      await sleep(Math.ceil(1000 / patchRate), undefined, { signal });
    }
  }

  function backoff(attempt: number, retryAfter: string | null): number {
    const told = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : undefined;
    if (told !== undefined) return Math.min(told, retry.maxMs);
    const exp = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1));
    return Math.round(exp / 2 + (exp / 2) * Math.random());
  }

  /**
   * One request, retried while Google answers 429/5xx; answers the final response. `signal` stops
   * the waits between tries, and the request itself unless `finishInFlight`: a PATCH under way when
   * the job stops is let finish, so the push records it and a resumed push does not send it again.
   */
  async function send(
    api: 'token' | 'directory' | 'gmail',
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    finishInFlight = false,
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      let res: Response | undefined;
      let failure: unknown;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        res = await fetch(url, { ...init, signal: signal && !finishInFlight ? AbortSignal.any([signal, timeout]) : timeout });
      } catch (err) {
        if (signal?.aborted && !finishInFlight) throw err;
        failure = err;
      }
      const transient = !res || TRANSIENT.has(res.status) || (res.status === 403 && (await isRateLimit(res)));
      if (!transient && res) {
        options.onRequest?.(api, res.ok ? 'ok' : 'error');
        return res;
      }
      const wait = backoff(attempt, res?.headers.get('retry-after') ?? null);
      if (attempt >= retry.attempts) {
        options.onRequest?.(api, 'error');
        const what = res ? `answered ${res.status}${res.status === 429 ? ' (rate limit exceeded)' : ''}` : `did not answer (${(failure as Error).message})`;
        throw new GoogleError('transient', `Google ${what} ${attempt} times in a row; the job tries again later.`, {
          status: res?.status ?? 0,
          retryAfterMs: wait,
          cause: failure,
        });
      }
      options.onRequest?.(api, 'retried');
      await res?.body?.cancel().catch(() => {});
      await sleep(wait, undefined, { signal });
    }
  }

  async function exchange(c: GoogleCredentials, subject: string, scope: string, signal: AbortSignal | undefined): Promise<string> {
    const iat = Math.floor(now() / 1000);
    const assertion = await new SignJWT({ scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(c.privateKeyId ? { kid: c.privateKeyId } : {}) })
      .setIssuer(c.clientEmail)
      .setSubject(subject)
      .setAudience(endpoints.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await keyOf(c));
    const res = await send(
      'token',
      endpoints.tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      },
      signal,
    );
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!res.ok || !body.access_token) throw tokenError(res.status, body, { clientId: c.clientId || c.clientEmail, subject, scope });
    tokens.set(`${c.clientEmail}:${c.privateKeyId}:${subject}:${scope}`, { token: body.access_token, expiresAt: now() + (body.expires_in ?? 3600) * 1000 });
    return body.access_token;
  }

  async function token(c: GoogleCredentials, subject: string, scope: string, signal?: AbortSignal): Promise<string> {
    const id = `${c.clientEmail}:${c.privateKeyId}:${subject}:${scope}`;
    const cached = tokens.get(id);
    if (cached && cached.expiresAt - marginMs > now()) return cached.token;
    let pending = exchanges.get(id);
    if (!pending) {
      pending = exchange(c, subject, scope, signal).finally(() => exchanges.delete(id));
      exchanges.set(id, pending);
    }
    return pending;
  }

  /** A call as `subject`; a 401 (a token revoked early) drops the token and tries once more. */
  async function call(
    api: 'directory' | 'gmail',
    c: GoogleCredentials,
    subject: string,
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    finishInFlight = false,
  ): Promise<unknown> {
    const scope = api === 'directory' ? SCOPES.directory : SCOPES.gmail;
    for (let fresh = false; ; fresh = true) {
      const bearer = await token(c, subject, scope, signal);
      const res = await send(api, url, { ...init, headers: { ...init.headers, authorization: `Bearer ${bearer}` } }, signal, finishInFlight);
      if (res.status === 401 && !fresh) {
        tokens.delete(`${c.clientEmail}:${c.privateKeyId}:${subject}:${scope}`);
        await res.body?.cancel().catch(() => {});
        continue;
      }
      const body = await res.json().catch(() => ({}));
      if (!res.ok) throw apiError(res.status, body as never, { api, subject });
      return body;
    }
  }

  return {
    token,

    /** One page of the Workspace's users, read as `adminEmail`. */
    async listUsers(c: GoogleCredentials, adminEmail: string, pageToken: string | undefined, signal?: AbortSignal) {
      const url = new URL('/admin/directory/v1/users', endpoints.adminApiUrl);
      url.searchParams.set('customer', 'my_customer');
      url.searchParams.set('maxResults', '500');
      url.searchParams.set('projection', 'full');
      url.searchParams.set('viewType', 'admin_view');
      if (pageToken) url.searchParams.set('pageToken', pageToken);
      const body = (await call('directory', c, adminEmail, url.toString(), { method: 'GET' }, signal)) as { users?: GoogleUser[]; nextPageToken?: string };
      return { users: body.users ?? [], nextPageToken: body.nextPageToken || undefined };
    },

    /** A user's photo (users.photos.get), read as `adminEmail`; null when the user has none (404). */
    async getPhoto(c: GoogleCredentials, adminEmail: string, userKey: string, signal?: AbortSignal): Promise<GooglePhoto | null> {
      const url = new URL(`/admin/directory/v1/users/${encodeURIComponent(userKey)}/photos/thumbnail`, endpoints.adminApiUrl);
      try {
        return (await call('directory', c, adminEmail, url.toString(), { method: 'GET' }, signal)) as GooglePhoto;
      } catch (err) {
        if (err instanceof GoogleError && err.status === 404) return null;
        throw err;
      }
    },

    /** The user's primary send-as address settings (the connection test reads the admin's). */
    async getSendAs(c: GoogleCredentials, email: string, signal?: AbortSignal) {
      const url = `${endpoints.gmailApiUrl}/gmail/v1/users/${encodeURIComponent(email)}/settings/sendAs/${encodeURIComponent(email)}`;
      return (await call('gmail', c, email, url, { method: 'GET' }, signal)) as { sendAsEmail?: string; signature?: string };
    },

    /** Sets the signature of the user's primary send-as address, acting as the user. */
    async patchSignature(c: GoogleCredentials, email: string, html: string, signal?: AbortSignal): Promise<void> {
      await pace(c.clientEmail, signal);
      const url = `${endpoints.gmailApiUrl}/gmail/v1/users/${encodeURIComponent(email)}/settings/sendAs/${encodeURIComponent(email)}`;
      const init = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ signature: html }) };
      await call('gmail', c, email, url, init, signal, true);
    },
  };
}

export type GoogleClient = ReturnType<typeof createGoogleClient>;

async function isRateLimit(res: Response): Promise<boolean> {
  const body = (await res
    .clone()
    .json()
    .catch(() => ({}))) as { error?: { errors?: { reason?: string }[] } };
  return (body.error?.errors ?? []).some((e) => /rateLimitExceeded|userRateLimitExceeded|quotaExceeded/.test(e.reason ?? ''));
}
