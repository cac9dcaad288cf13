// The only reader of process.env. Every variable is parsed once, at start-up, by one zod schema;
// a bad value stops start-up with a message that names the variable (docs/configuration.md).
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { gatewayFields, gatewayOf } from './config-gateway.ts';
import { callbackUrl, int, isProxyEntry, optionalString, posInt, url } from './config-fields.ts';
import { parseSecretsKey } from './lib/secrets-key.ts';

// Each render thread is a V8 heap of its own (~35 MB under load, BENCHMARKS.md "Memory"). With 2
// CPUs the main thread and one render thread can fill them; a first render cost no more CPU with
// one thread (on a busy machine two took a larger share of it: BENCHMARKS.md).
const envFields = z.object({
  PORT: int(3000).pipe(z.number().max(65535)).describe('listen port'),
  HOST: z.string().min(1).default('127.0.0.1').describe('listen address'),
  STAGE: z
    .string()
    .regex(/^[a-z0-9]{1,16}$/, 'must be 1-16 lowercase letters or digits (it appears in API keys and client ids)')
    .default('dev')
    .describe('the `<stage>` in API keys and in the client ids `app-client-{stage}` / `admin-client-{stage}`'),
  BASE_URL: url.optional().describe('public URL of the API (default `http://localhost:{PORT}`)'),
  AUTH_URL: url.optional().describe('public URL of the identity provider (default `{BASE_URL}/auth`)'),
  APP_URL: url.optional().describe('dashboard URL, the customer client callback (default `{BASE_URL}/app`)'),
  ADMIN_URL: url.optional().describe('staff admin app URL, the admin client callback (default `{BASE_URL}/admin`)'),
  BILLING_URL: optionalString
    .pipe(url.optional())
    .describe("where an org's people are sent to pay; the dashboard's payment banner links to it (unset: no link)"),
  WEB_DIST_DIR: z
    .string()
    .min(1)
    .default('web/dist')
    .describe('the built web apps (`npm run build:web`, run by `npm install`), relative to the project folder or absolute'),
  EXTENSION_CALLBACK_URLS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(callbackUrl))
    .describe('extra callback URLs of the customer client, comma-separated, any scheme (`chrome-extension://…`, `com.example.app:/cb`)'),
  TRUST_PROXY: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every(isProxyEntry), { message: 'must be comma-separated IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal)' })
    .describe(
      "proxies whose `X-Forwarded-For` / `-Proto` / `-Host` are believed: comma-separated addresses or CIDR ranges; unset: none, the client is the socket's address",
    ),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^(postgres|postgresql|memory):\/\//.test(v), {
      message: 'must start with postgres://, postgresql:// or memory://',
    })
    .refine((v) => v === undefined || !v.startsWith('postgres') || URL.canParse(v), { message: 'is not a valid URL' })
    .transform((v) => (v === '' ? undefined : v))
    .describe('unset: embedded PostgreSQL (PGlite) in `DATA_DIR`; `postgres://…` a PostgreSQL server; `memory://` an in-memory embedded one'),
  DATABASE_STATEMENT_TIMEOUT_MS: posInt(1500).describe(
    'PostgreSQL server: the server cancels a statement running longer (`statement_timeout`); the client gives up 500 ms later',
  ),
  DATABASE_CONNECT_TIMEOUT_MS: posInt(1500).describe('PostgreSQL server: the longest wait for a pooled connection, opening a new one included'),
  DATA_DIR: z.string().min(1).default('./data').describe('embedded database files, image files and generated signing keys'),
  IMAGES_MAX_BYTES_PER_ORG: posInt(50 * 1024 * 1024).describe("an org's live images together, in bytes (besides 500 images); past it an upload is 413"),
  REDIS_URL: optionalString
    .refine((v) => v === undefined || /^rediss?:\/\//.test(v), { message: 'must start with redis:// or rediss://' })
    .describe('unset: in-process; set: shared rate-limit buckets for several instances'),
  REDIS_COMMAND_TIMEOUT_MS: posInt(150).describe('a Redis command unanswered after this long fails, and the per-instance fallback answers'),
  RATE_LIMIT_RPS: posInt(100).describe('stage-wide token bucket refill per second, authenticated routes'),
  RATE_LIMIT_BURST: posInt(200).describe('stage-wide token bucket size'),
  RATE_LIMIT_LEASE: posInt(1000).describe(
    'with Redis: the most tokens of a bucket an instance takes at once and spends itself (a lease is what the bucket refills in 10 ms, at least 10, at most a tenth of the burst); 1: every request asks Redis',
  ),
  PIXEL_RATE_LIMIT_RPS: posInt(50).describe('token bucket refill per second of `GET /v1/p/{userId}`'),
  PIXEL_RATE_LIMIT_BURST: posInt(100).describe('token bucket size of `GET /v1/p/{userId}`'),
  ANON_RATE_LIMIT_RPS: posInt(5).describe('per-client token bucket refill per second of requests with missing or invalid credentials'),
  ANON_RATE_LIMIT_BURST: posInt(20).describe('per-client token bucket size of requests with missing or invalid credentials'),
  RETRY_AFTER_S: posInt(30).describe('`Retry-After` sent with 429'),
  THROTTLE_REFUSAL_DELAY_MS: int(250)
    .pipe(z.number().max(5000))
    .describe("how long a bucket's 429 is held back: a client flooding past its bucket then sends one request per delay and connection; 0: at once"),
  ORG_RATE_LIMIT_RPS: posInt(50).describe("per-org token bucket refill per second: every authenticated request with an org takes one besides the stage's"),
  ORG_RATE_LIMIT_BURST: posInt(100).describe('per-org token bucket size'),
  PUBLIC_RATE_LIMIT_RPS: posInt(20).describe(
    'per-client-address token bucket refill per second, shared by the public routes (images, the pixel, the add-in without a valid key)',
  ),
  PUBLIC_RATE_LIMIT_BURST: posInt(40).describe('per-client-address token bucket size of the public routes'),
  ASSET_RATE_LIMIT_RPS: posInt(500).describe('stage-wide token bucket refill per second of `GET /v1/images/{imageId}` (and the other public assets)'),
  ASSET_RATE_LIMIT_BURST: posInt(1000).describe('stage-wide token bucket size of the public assets'),
  CLICK_RATE_LIMIT_RPS: posInt(200).describe('stage-wide token bucket refill per second of the click route'),
  CLICK_RATE_LIMIT_BURST: posInt(400).describe('stage-wide token bucket size of the click route'),
  CLICK_ADDRESS_RETENTION_DAYS: posInt(30).describe("days a click keeps its client's address; then only its /24 (IPv4) or /48 (IPv6)"),
  QUOTA_REQUESTS_PER_MONTH: int(100000).describe("API-key requests an org may make per calendar month (UTC); staff may set an org's own; 0: no quota"),
  MAIL_PER_ORG_PER_HOUR: posInt(500).describe('mails one org sends per hour at most; past it they wait in the queue for the next hour'),
  BODY_LIMIT_BYTES: posInt(5 * 1024 * 1024).describe('request body maximum'),
  RENDER_LIMIT_BYTES: posInt(30 * 1024).describe('render output maximum, in UTF-8 bytes of the HTML'),
  RENDER_THREADS: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number().int().min(1).optional())
    .describe(
      'worker threads that save, preview and first-render templates (warm renders stay on the main thread); unset: 2, or 1 on a machine with 2 CPUs or fewer',
    ),
  RENDER_THREAD_IDLE_MS: int(60_000).describe(
    'a render thread with no work for this long stops (the next template work starts one again, ~0.2 s); 0: they never stop',
  ),
  WEBHOOK_SECRET: optionalString.describe('shared secret of the payment provider; unset: the webhook route answers 503'),
  WEBHOOK_TOLERANCE_S: posInt(300).describe('webhook signature timestamp tolerance'),
  WEBHOOK_DEDUP_S: posInt(604800).describe('webhook event-id dedup window'),
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('outbound webhooks: also allow http URLs and private addresses (tests, self-hosted intranets); otherwise https to public addresses only'),
  GRACE_PERIOD_S: posInt(1209600).describe('grace after payment failure or cancellation'),
  ID_TOKEN_TTL_S: posInt(3600).describe('ID token lifetime'),
  ACCESS_TOKEN_TTL_S: posInt(3600).describe('access token lifetime'),
  REFRESH_TOKEN_TTL_APP_S: posInt(2592000).describe('refresh token lifetime, customer client'),
  REFRESH_TOKEN_TTL_ADMIN_S: posInt(604800).describe('refresh token lifetime, admin client'),
  SIGNIN_ATTEMPTS_PER_MINUTE: posInt(10).describe('sign-in attempts per client IP per minute (also the burst)'),
  SMTP_URL: optionalString
    .refine((v) => v === undefined || (/^smtps?:\/\//.test(v) && URL.canParse(v)), { message: 'must be smtp://user:pass@host:port or smtps://…' })
    .describe('where mail goes (`smtps://` for TLS); unset: no mail is sent, and admins read invitation links from the API'),
  MAIL_FROM: optionalString.describe('sender of the mails (default `"Signature Service" <no-reply@{host of BASE_URL}>`)'),
  INVITATION_TTL_S: posInt(604800).describe('how long an invitation link works (7 days)'),
  PASSWORD_RESET_TTL_S: posInt(1800).describe('how long a password-reset link works (30 minutes)'),
  RESET_MAILS_PER_ADDRESS_PER_HOUR: posInt(3).describe(
    'password-reset mails sent to one address per hour at most (more requests get the same answer and no mail)',
  ),
  JOBS_CONCURRENCY: posInt(4).describe('background jobs (mail, syncs, pushes) one instance runs at the same time'),
  EMBEDDED_VACUUM_INTERVAL_MS: int(60_000)
    .pipe(z.number().max(2_147_483_647))
    .describe(
      'embedded database only: how often the service vacuums and analyzes the tables that need it, as autovacuum does on a PostgreSQL server; 0: never',
    ),
  JOBS_POLL_MS: posInt(1000).describe('how often an idle instance looks for due background jobs'),
  JOBS_LEASE_MS: int(60000, 1000).describe("how long a claimed job stays an instance's without renewal; a crashed instance's jobs run again after it"),
  JOBS_RETRY_BASE_MS: posInt(10000).describe('first retry delay of a failed job; doubling each time, with jitter'),
  JOBS_RETRY_MAX_MS: posInt(900000).describe('longest delay between two attempts of a job'),
  JOBS_MAX_ATTEMPTS: posInt(20).describe('attempts before a job fails for good (kinds may set their own)'),
  OIDC_ISSUER: optionalString
    .pipe(url.optional())
    .describe('an external OpenID issuer (Cognito, Keycloak) whose ID tokens the API also accepts, found by discovery'),
  OIDC_AUDIENCES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .describe("client ids accepted as `aud` of the external issuer's ID tokens, comma-separated"),
  CACHE_TTL_MS: int(2000)
    .pipe(z.number().max(5000))
    .describe('how long an instance may serve a cached key, org or user before re-reading it (at most 5000: revocation reaches every instance within 5 s)'),
  MICROSOFT_LOGIN_URL: url
    .default('https://login.microsoftonline.com')
    .describe('Microsoft identity platform (client credentials: `{url}/{tenantId}/oauth2/v2.0/token`)'),
  MICROSOFT_GRAPH_URL: url.default('https://graph.microsoft.com').describe('Microsoft Graph (users read from `{url}/v1.0/users`)'),
  MICROSOFT_SYNC_INTERVAL_S: posInt(3600).describe('how often each connected Microsoft Entra directory is synced'),
  ADDIN_RATE_LIMIT_RPS: posInt(100).describe('per-org token bucket refill per second of `GET /v1/addin/signature` (the Outlook add-in) with a valid key'),
  ADDIN_RATE_LIMIT_BURST: posInt(200).describe('token bucket size of `GET /v1/addin/signature`'),
  ADDIN_FETCH_TIMEOUT_MS: posInt(5000).describe('how long the Outlook add-in waits for a signature before letting the user compose without one'),
  METRICS_TOKEN: optionalString.describe(
    'set: `GET /metrics` requires `Authorization: Bearer <METRICS_TOKEN>`; unset: it is open (keep it on a private network)',
  ),
  SECRETS_KEY: optionalString
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      try {
        return parseSecretsKey(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .describe(
      "32 random bytes, base64 (`openssl rand -base64 32`): the AES-256-GCM key of stored secrets (integration keys); unset: generated into DATA_DIR/secrets.key on the embedded database's first start, one per process with `memory://`, and on a PostgreSQL server secrets are refused",
    ),
  SECRETS_KEY_PREVIOUS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const values = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return values.map((value, i) => {
        try {
          return parseSecretsKey(value);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `key ${i + 1} of ${values.length} ${(err as Error).message}` });
          return Buffer.alloc(0);
        }
      });
    })
    .describe(
      'while rotating SECRETS_KEY: the old key(s), comma-separated, which still open what was sealed under them (nothing is sealed with them) until `sigsvc secrets rekey` has sealed it again under SECRETS_KEY',
    ),
  GOOGLE_TOKEN_URL: url.default('https://oauth2.googleapis.com/token').describe("Google's OAuth 2.0 token endpoint (the `aud` of service-account assertions)"),
  GOOGLE_ADMIN_API_URL: url.default('https://admin.googleapis.com').describe("base URL of Google's Admin SDK Directory API"),
  GOOGLE_GMAIL_API_URL: url.default('https://gmail.googleapis.com').describe("base URL of Google's Gmail API"),
  GOOGLE_SYNC_INTERVAL_S: posInt(3600).describe('how often each connected Google Workspace directory is synced'),
  ...gatewayFields,
  DNS_SERVERS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .describe("DNS servers for domain verification, comma-separated (`127.0.0.1:5353`); unset: the system's"),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
});

type Env = z.output<typeof envFields>;

export const envSchema = envFields
  .superRefine((env, ctx) => {
    if (env.OIDC_ISSUER && env.OIDC_AUDIENCES.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_AUDIENCES'], message: 'is required when OIDC_ISSUER is set' });
    }
    if (Boolean(env.GATEWAY_TLS_CERT) !== Boolean(env.GATEWAY_TLS_KEY)) {
      ctx.addIssue({ code: 'custom', path: ['GATEWAY_TLS_CERT'], message: 'GATEWAY_TLS_CERT and GATEWAY_TLS_KEY are set together' });
    }
    if (env.SECRETS_KEY_PREVIOUS.length > 0 && !env.SECRETS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRETS_KEY_PREVIOUS'],
        message: 'needs SECRETS_KEY (the new key; the previous ones only open what was sealed under them)',
      });
    }
  })
  .transform(toConfig);

/** The service's settings from the parsed environment. */
function toConfig(env: Env) {
  const baseUrl = stripSlash(env.BASE_URL ?? `http://localhost:${env.PORT}`);
  return {
    port: env.PORT,
    host: env.HOST,
    stage: env.STAGE,
    baseUrl,
    authUrl: stripSlash(env.AUTH_URL ?? `${baseUrl}/auth`),
    appUrl: stripSlash(env.APP_URL ?? `${baseUrl}/app`),
    adminUrl: stripSlash(env.ADMIN_URL ?? `${baseUrl}/admin`),
    extensionCallbackUrls: env.EXTENSION_CALLBACK_URLS,
    trustProxy: env.TRUST_PROXY,
    billingUrl: env.BILLING_URL,
    webDistDir: env.WEB_DIST_DIR,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    databaseTimeouts: { statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS, connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS },
    redisUrl: env.REDIS_URL,
    redisTimeouts: { commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS },
    ...limitsOf(env),
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    renderLimitBytes: env.RENDER_LIMIT_BYTES,
    // One thread fewer than the CPUs, one at least and two at most: a thread is a V8 heap of its own (BENCHMARKS.md, "Memory").
    renderThreads: env.RENDER_THREADS ?? Math.min(2, Math.max(1, availableParallelism() - 1)),
    renderThreadIdleMs: env.RENDER_THREAD_IDLE_MS,
    embeddedVacuumIntervalMs: env.EMBEDDED_VACUUM_INTERVAL_MS,
    webhookSecret: env.WEBHOOK_SECRET,
    webhookToleranceS: env.WEBHOOK_TOLERANCE_S,
    webhookDedupS: env.WEBHOOK_DEDUP_S,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
    gracePeriodS: env.GRACE_PERIOD_S,
    idTokenTtlS: env.ID_TOKEN_TTL_S,
    accessTokenTtlS: env.ACCESS_TOKEN_TTL_S,
    refreshTokenTtlAppS: env.REFRESH_TOKEN_TTL_APP_S,
    refreshTokenTtlAdminS: env.REFRESH_TOKEN_TTL_ADMIN_S,
    signInAttemptsPerMinute: env.SIGNIN_ATTEMPTS_PER_MINUTE,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM ?? `"Signature Service" <no-reply@${new URL(baseUrl).hostname}>`,
    invitationTtlS: env.INVITATION_TTL_S,
    passwordResetTtlS: env.PASSWORD_RESET_TTL_S,
    resetMailsPerAddressPerHour: env.RESET_MAILS_PER_ADDRESS_PER_HOUR,
    jobs: {
      concurrency: env.JOBS_CONCURRENCY,
      pollMs: env.JOBS_POLL_MS,
      leaseMs: env.JOBS_LEASE_MS,
      retryBaseMs: env.JOBS_RETRY_BASE_MS,
      retryMaxMs: env.JOBS_RETRY_MAX_MS,
      maxAttempts: env.JOBS_MAX_ATTEMPTS,
    },
    oidcIssuer: env.OIDC_ISSUER,
    oidcAudiences: env.OIDC_AUDIENCES,
    cacheTtlMs: env.CACHE_TTL_MS,
    microsoft: {
      loginUrl: stripSlash(env.MICROSOFT_LOGIN_URL),
      graphUrl: stripSlash(env.MICROSOFT_GRAPH_URL),
      syncIntervalS: env.MICROSOFT_SYNC_INTERVAL_S,
    },
    addinRateLimit: { rps: env.ADDIN_RATE_LIMIT_RPS, burst: env.ADDIN_RATE_LIMIT_BURST },
    addinFetchTimeoutMs: env.ADDIN_FETCH_TIMEOUT_MS,
    metricsToken: env.METRICS_TOKEN,
    logLevel: env.LOG_LEVEL,
    gateway: gatewayOf(env),
    dnsServers: env.DNS_SERVERS,
    secretsKey: env.SECRETS_KEY,
    secretsKeysPrevious: env.SECRETS_KEY_PREVIOUS,
    google: {
      tokenUrl: env.GOOGLE_TOKEN_URL,
      adminApiUrl: stripSlash(env.GOOGLE_ADMIN_API_URL),
      gmailApiUrl: stripSlash(env.GOOGLE_GMAIL_API_URL),
      syncIntervalS: env.GOOGLE_SYNC_INTERVAL_S,
    },
  };
}

/** Every bucket, the quota and the mail cap (docs/api.md, "Rate limits"). */
function limitsOf(env: Env) {
  return {
    rateLimit: { rps: env.RATE_LIMIT_RPS, burst: env.RATE_LIMIT_BURST },
    pixelRateLimit: { rps: env.PIXEL_RATE_LIMIT_RPS, burst: env.PIXEL_RATE_LIMIT_BURST },
    anonRateLimit: { rps: env.ANON_RATE_LIMIT_RPS, burst: env.ANON_RATE_LIMIT_BURST },
    retryAfterS: env.RETRY_AFTER_S,
    throttleRefusalDelayMs: env.THROTTLE_REFUSAL_DELAY_MS,
    rateLimitLease: env.RATE_LIMIT_LEASE,
    orgRateLimit: { rps: env.ORG_RATE_LIMIT_RPS, burst: env.ORG_RATE_LIMIT_BURST },
    publicRateLimit: { rps: env.PUBLIC_RATE_LIMIT_RPS, burst: env.PUBLIC_RATE_LIMIT_BURST },
    assetRateLimit: { rps: env.ASSET_RATE_LIMIT_RPS, burst: env.ASSET_RATE_LIMIT_BURST },
    clickRateLimit: { rps: env.CLICK_RATE_LIMIT_RPS, burst: env.CLICK_RATE_LIMIT_BURST },
    clickAddressRetentionDays: env.CLICK_ADDRESS_RETENTION_DAYS,
    quotaRequestsPerMonth: env.QUOTA_REQUESTS_PER_MONTH,
    imagesMaxBytesPerOrg: env.IMAGES_MAX_BYTES_PER_ORG,
    mailPerOrgPerHour: env.MAIL_PER_ORG_PER_HOUR,
  };
}

/** The SMTP signature gateway's settings (docs/gateway.md). */
export type Config = z.output<typeof envSchema>;

function stripSlash(u: string): string {
  return u.replace(/\/+$/, '');
}

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.issues = issues;
  }
}

/** Parses an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `${name}: ${issue.message} (got ${JSON.stringify(shown(name, env[name]))})`;
    }),
  );
}

/** A value as an error message may show it: no secret, and no URL's password. */
function shown(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (/SECRET|TOKEN|PASSWORD|_KEY$/.test(name)) return '[hidden]';
  return redactUrlPassword(value);
}

/** `scheme://user:password@host…` with the password replaced by `***` (the last `@` ends it). */
export function redactUrlPassword(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s]*@/gi, '$1***@');
}

/** Names, defaults and meanings of every variable, for the table of docs/configuration.md and its test. */
export function configVariables(): { name: string; default: string; meaning: string }[] {
  const shape = envSchema.in.shape;
  return Object.entries(shape).map(([name, schema]) => {
    const parsed = (schema as z.ZodType).safeParse(undefined);
    const def = parsed.success && parsed.data !== undefined ? JSON.stringify(parsed.data) : '';
    return { name, default: def, meaning: (schema as z.ZodType).description ?? '' };
  });
}
