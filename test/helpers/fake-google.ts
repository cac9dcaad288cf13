// A fake of Google's three endpoints on localhost, speaking the documented protocol, reached
// through the service's configurable base URLs (GOOGLE_TOKEN_URL, GOOGLE_ADMIN_API_URL,
// GOOGLE_GMAIL_API_URL):
// - POST /token: a JWT bearer assertion, its RS256 signature checked with the public half of the
//   service account's key, its claims (iss a known service account, aud the token URL, exp no more
//   than an hour after iat and not past, sub a user of the Workspace) and its scope against the
//   delegation granted to the account's client ID; answers an opaque access token or Google's
//   errors (401 unauthorized_client, 400 invalid_grant).
// - GET /admin/directory/v1/users: the Workspace's users in pages (`pageSize` of the fake, at most
//   the request's maxResults), for an admin's token with the directory scope; `my_customer` is the
//   admin's Workspace, which the fake takes to be the users of the admin's domain.
//   A user with a photo is listed with `thumbnailPhotoUrl` and `thumbnailPhotoEtag` (a new etag for
//   each new photo), as Google lists them.
// - GET /admin/directory/v1/users/{userKey}/photos/thumbnail (users.photos.get): the photo as
//   `photoData` in web-safe base64 with its `mimeType`, `etag`, `width` and `height`, for an admin's
//   directory token; 404 notFound for a user without a photo. Every request is kept in `photoRequests`.
// - GET and PATCH /gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}: for the user's own token
//   with the Gmail scope; records every PATCH; 400 failedPrecondition "Mail service not enabled"
//   for users without Gmail, 400 invalidArgument past 10,000 characters.
// Failures can be queued (`failNext`): 429 rateLimitExceeded, 500, 503.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';

export const DIRECTORY_SCOPE = 'https://www.googleapis.com/auth/admin.directory.user.readonly';
export const GMAIL_SCOPE = 'https://www.googleapis.com/auth/gmail.settings.basic';

export interface FakeGoogleUser {
  id: string;
  primaryEmail: string;
  name: { fullName: string };
  suspended?: boolean;
  isAdmin?: boolean;
  organizations?: { title?: string; department?: string; primary?: boolean }[];
  phones?: { value: string; type: string }[];
  /** False: no Gmail licence (PATCH answers failedPrecondition). */
  gmail?: boolean;
  signature?: string;
  /** The user's photo (setPhoto gives it a new etag, as Google does when a photo changes). */
  photo?: { data: Buffer; mimeType: string; etag: string; width: number; height: number };
}

export interface ServiceAccount {
  clientEmail: string;
  clientId: string;
  keyFile: Record<string, string>;
  publicKey: KeyObject;
}

export type Failure = 429 | 500 | 503 | '403-rate';

export interface FakeGoogle {
  url: string;
  tokenUrl: string;
  users: Map<string, FakeGoogleUser>;
  /** Every PATCH, in order: who, and the signature sent. */
  patches: { email: string; signature: string; at: number }[];
  /** Token requests answered, by subject. */
  tokenRequests: Map<string, number>;
  /** Every users.photos.get request, by the userKey asked for. */
  photoRequests: string[];
  /** Sets (or removes, with no data) a user's photo, with a new etag. */
  setPhoto(email: string, photo: { data: Buffer; mimeType: string; width: number; height: number } | undefined): void;
  /** Page size of the directory (Google's maxResults is at most 500). */
  pageSize: number;
  /** Delay of every answer, to let a test stop a push half-way. */
  delayMs: number;
  /** Delegated scopes by client ID (the Admin console's domain-wide delegation). */
  delegation: Map<string, Set<string>>;
  /** A new service account whose key the fake trusts. */
  serviceAccount(options?: { delegate?: string[] }): ServiceAccount;
  addUser(user: Partial<FakeGoogleUser> & { primaryEmail: string }): FakeGoogleUser;
  /** The next `count` Gmail (or directory, or token) requests answer this failure. */
  failNext(api: 'gmail' | 'directory' | 'token', failure: Failure, count: number, retryAfterS?: number): void;
  close(): Promise<void>;
}

interface IssuedToken {
  subject: string;
  scopes: Set<string>;
  expiresAt: number;
}

// The service accounts' RSA keys (~40 ms of CPU each to make), kept for the process: the n-th
// account of every fake gets the n-th key, so the accounts of one fake never share a key, and a
// shard's test files (test/run.ts) make each key once instead of once per account.
const accountKeys: KeyObject[] = [];
function accountKey(n: number): KeyObject {
  while (accountKeys.length <= n) accountKeys.push(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
  return accountKeys[n]!;
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const accounts = new Map<string, ServiceAccount>();
  const issued = new Map<string, IssuedToken>();
  const failures: Record<'gmail' | 'directory' | 'token', { failure: Failure; retryAfterS?: number }[]> = { gmail: [], directory: [], token: [] };
  let tokenUrl = '';

  const fake: FakeGoogle = {
    url: '',
    tokenUrl: '',
    users: new Map(),
    patches: [],
    tokenRequests: new Map(),
    photoRequests: [],
    pageSize: 500,
    delayMs: 0,
    delegation: new Map(),
    serviceAccount(options = {}) {
      const privateKey = accountKey(accounts.size);
      const clientId = String(100000000000000000000n + BigInt(Math.floor(Math.random() * 1e12)));
      const clientEmail = `sigsvc-${randomUUID().slice(0, 8)}@test-project.iam.gserviceaccount.com`;
      const privateKeyId = randomUUID().replaceAll('-', '');
      const keyFile = {
        type: 'service_account',
        project_id: 'test-project',
        private_key_id: privateKeyId,
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: clientEmail,
        client_id: clientId,
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
        auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
        client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
        universe_domain: 'googleapis.com',
      };
      const account = { clientEmail, clientId, keyFile, publicKey: createPublicKey(privateKey) };
      accounts.set(clientEmail, account);
      fake.delegation.set(clientId, new Set(options.delegate ?? [DIRECTORY_SCOPE, GMAIL_SCOPE]));
      return account;
    },
    addUser(user) {
      const full: FakeGoogleUser = {
        id: user.id ?? randomUUID().replaceAll('-', '').slice(0, 21),
        name: { fullName: user.primaryEmail.split('@')[0]! },
        gmail: true,
        ...user,
      };
      fake.users.set(full.primaryEmail.toLowerCase(), full);
      return full;
    },
    setPhoto(email, photo) {
      const user = fake.users.get(email.toLowerCase());
      if (!user) throw new Error(`no user ${email}`);
      if (photo) user.photo = { ...photo, etag: `"${randomUUID()}"` };
      else delete user.photo;
    },
    failNext(api, failure, count, retryAfterS) {
      for (let i = 0; i < count; i++) failures[api].push({ failure, ...(retryAfterS !== undefined ? { retryAfterS } : {}) });
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const apiError = (res: ServerResponse, status: number, reason: string, message: string, statusText: string, headers: Record<string, string> = {}) =>
    json(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: statusText } }, headers);

  function injected(api: 'gmail' | 'directory' | 'token', res: ServerResponse): boolean {
    const next = failures[api].shift();
    if (!next) return false;
    const headers: Record<string, string> = next.retryAfterS !== undefined ? { 'retry-after': String(next.retryAfterS) } : {};
    if (next.failure === 429) apiError(res, 429, 'rateLimitExceeded', 'Rate Limit Exceeded', 'RESOURCE_EXHAUSTED', headers);
    else if (next.failure === '403-rate') apiError(res, 403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'PERMISSION_DENIED', headers);
    else if (next.failure === 500) apiError(res, 500, 'backendError', 'Backend Error', 'INTERNAL', headers);
    else apiError(res, 503, 'backendError', 'The service is currently unavailable.', 'UNAVAILABLE', headers);
    return true;
  }

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handleToken(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    if (injected('token', res)) return;
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return json(res, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${form.get('grant_type')}` });
    }
    const assertion = form.get('assertion') ?? '';
    const [headerPart, payloadPart] = assertion.split('.');
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payloadPart ?? '', 'base64url').toString());
      JSON.parse(Buffer.from(headerPart ?? '', 'base64url').toString());
    } catch {
      return json(res, 400, {
        error: 'invalid_grant',
        error_description: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
      });
    }
    const account = accounts.get(String(claims.iss));
    if (!account) return json(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    try {
      await jwtVerify(assertion, account.publicKey, { algorithms: ['RS256'], issuer: account.clientEmail, audience: tokenUrl, clockTolerance: 5 });
    } catch (err) {
      const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      return json(res, 400, {
        error: 'invalid_grant',
        error_description: expired ? 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.' : 'Invalid JWT Signature.',
      });
    }
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isFinite(iat) || !Number.isFinite(exp) || exp - iat > 3600 || exp <= iat) {
      return json(res, 400, {
        error: 'invalid_grant',
        error_description:
          'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      });
    }
    const scopes = String(claims.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const granted = fake.delegation.get(account.clientId) ?? new Set();
    if (scopes.length === 0 || scopes.some((s) => !granted.has(s))) {
      return json(res, 401, {
        error: 'unauthorized_client',
        error_description: 'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      });
    }
    const subject = String(claims.sub ?? '').toLowerCase();
    if (!fake.users.has(subject)) return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid email or User ID' });
    fake.tokenRequests.set(subject, (fake.tokenRequests.get(subject) ?? 0) + 1);
    const token = `ya29.fake-${randomUUID()}`;
    issued.set(token, { subject, scopes: new Set(scopes), expiresAt: Date.now() + 3600_000 });
    json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  function bearer(req: IncomingMessage, res: ServerResponse, scope: string): IssuedToken | undefined {
    const token = issued.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!token || token.expiresAt < Date.now()) {
      apiError(res, 401, 'authError', 'Request had invalid authentication credentials.', 'UNAUTHENTICATED');
      return undefined;
    }
    if (!token.scopes.has(scope)) {
      apiError(res, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'PERMISSION_DENIED');
      return undefined;
    }
    return token;
  }

  function handleDirectory(req: IncomingMessage, res: ServerResponse, url: URL) {
    const token = bearer(req, res, DIRECTORY_SCOPE);
    if (!token) return;
    if (injected('directory', res)) return;
    if (!fake.users.get(token.subject)?.isAdmin) return apiError(res, 403, 'forbidden', 'Not Authorized to access this resource/api', 'PERMISSION_DENIED');
    if (url.searchParams.get('customer') !== 'my_customer') return apiError(res, 400, 'invalid', 'Bad Request', 'INVALID_ARGUMENT');
    const max = Math.min(500, Number(url.searchParams.get('maxResults') ?? 100), fake.pageSize);
    // `my_customer` is the admin's own Workspace: here, the users of the admin's domain.
    const domain = token.subject.split('@')[1];
    const all = [...fake.users.values()]
      .filter((u) => u.primaryEmail.toLowerCase().endsWith(`@${domain}`))
      .sort((a, b) => a.primaryEmail.localeCompare(b.primaryEmail));
    const start = url.searchParams.get('pageToken') ? Number(Buffer.from(url.searchParams.get('pageToken')!, 'base64url').toString()) : 0;
    const page = all.slice(start, start + max).map(({ gmail: _g, signature: _s, photo, isAdmin, ...u }) => ({
      kind: 'admin#directory#user',
      isAdmin: Boolean(isAdmin),
      suspended: false,
      ...u,
      ...(photo ? { thumbnailPhotoUrl: `https://lh3.googleusercontent.com/ao/fake-${u.id}`, thumbnailPhotoEtag: photo.etag } : {}),
    }));
    const next = start + max < all.length ? Buffer.from(String(start + max)).toString('base64url') : undefined;
    json(res, 200, { kind: 'admin#directory#users', etag: '"fake"', users: page, ...(next ? { nextPageToken: next } : {}) });
  }

  function handlePhoto(req: IncomingMessage, res: ServerResponse, userKey: string) {
    const token = bearer(req, res, DIRECTORY_SCOPE);
    if (!token) return;
    fake.photoRequests.push(userKey);
    if (injected('directory', res)) return;
    if (!fake.users.get(token.subject)?.isAdmin) return apiError(res, 403, 'forbidden', 'Not Authorized to access this resource/api', 'PERMISSION_DENIED');
    const user = fake.users.get(userKey.toLowerCase()) ?? [...fake.users.values()].find((u) => u.id === userKey);
    if (!user?.photo) return apiError(res, 404, 'notFound', 'Resource Not Found: userKey', 'NOT_FOUND');
    const { photo } = user;
    // Web-safe base64 (`-` and `_`), padded.
    const photoData = photo.data.toString('base64').replaceAll('+', '-').replaceAll('/', '_');
    json(res, 200, {
      kind: 'admin#directory#user#photo',
      id: user.id,
      etag: photo.etag,
      primaryEmail: user.primaryEmail,
      mimeType: photo.mimeType,
      width: photo.width,
      height: photo.height,
      photoData,
    });
  }

  async function handleSendAs(req: IncomingMessage, res: ServerResponse, userId: string, sendAsEmail: string) {
    const token = bearer(req, res, GMAIL_SCOPE);
    if (!token) return;
    const body = req.method === 'PATCH' ? await readBody(req) : '';
    if (injected('gmail', res)) return;
    const who = userId === 'me' ? token.subject : userId.toLowerCase();
    if (who !== token.subject) return apiError(res, 403, 'forbidden', `Delegation denied for ${token.subject}`, 'PERMISSION_DENIED');
    const user = fake.users.get(who);
    if (!user || user.suspended) return apiError(res, 400, 'failedPrecondition', 'Precondition check failed.', 'FAILED_PRECONDITION');
    if (user.gmail === false) return apiError(res, 400, 'failedPrecondition', 'Mail service not enabled', 'FAILED_PRECONDITION');
    if (sendAsEmail.toLowerCase() !== user.primaryEmail.toLowerCase()) return apiError(res, 404, 'notFound', 'Requested entity was not found.', 'NOT_FOUND');
    if (req.method === 'GET') return json(res, 200, { sendAsEmail: user.primaryEmail, isPrimary: true, isDefault: true, signature: user.signature ?? '' });
    let signature: unknown;
    try {
      signature = (JSON.parse(body) as { signature?: unknown }).signature;
    } catch {
      return apiError(res, 400, 'parseError', 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    }
    if (typeof signature !== 'string') return apiError(res, 400, 'invalidArgument', 'Invalid value at signature', 'INVALID_ARGUMENT');
    if (signature.length > 10_000) {
      return apiError(res, 400, 'invalidArgument', 'Signature exceeds maximum length of 10000 characters', 'INVALID_ARGUMENT');
    }
    user.signature = signature;
    fake.patches.push({ email: user.primaryEmail, signature, at: Date.now() });
    json(res, 200, { sendAsEmail: user.primaryEmail, isPrimary: true, isDefault: true, signature });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const route = async () => {
      if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs));
      if (req.method === 'POST' && url.pathname === '/token') return handleToken(req, res);
      if (req.method === 'GET' && url.pathname === '/admin/directory/v1/users') return handleDirectory(req, res, url);
      const photo = /^\/admin\/directory\/v1\/users\/([^/]+)\/photos\/thumbnail$/.exec(url.pathname);
      if (photo && req.method === 'GET') return handlePhoto(req, res, decodeURIComponent(photo[1]!));
      const sendAs = /^\/gmail\/v1\/users\/([^/]+)\/settings\/sendAs\/([^/]+)$/.exec(url.pathname);
      if (sendAs && (req.method === 'GET' || req.method === 'PATCH'))
        return handleSendAs(req, res, decodeURIComponent(sendAs[1]!), decodeURIComponent(sendAs[2]!));
      apiError(res, 404, 'notFound', 'Not Found', 'NOT_FOUND');
    };
    route().catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  fake.url = `http://127.0.0.1:${port}`;
  tokenUrl = `${fake.url}/token`;
  fake.tokenUrl = tokenUrl;
  return fake;
}

/** The environment that points the service at the fake. */
export function fakeGoogleEnv(fake: FakeGoogle): Record<string, string> {
  return { GOOGLE_TOKEN_URL: fake.tokenUrl, GOOGLE_ADMIN_API_URL: fake.url, GOOGLE_GMAIL_API_URL: fake.url };
}
