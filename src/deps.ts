// Builds every long-lived dependency from the config, once, and closes them in reverse order.
// Tests call createDeps with their own config (and may override parts, such as the clock).
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { openDatabase, type Database } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { databaseCheck, redisCheck, type HealthCheck } from './health/checks.ts';
import { connectRedis } from './store/redis.ts';
import { KeyUsageRecorder } from './api-keys/usage.ts';
import { createApiKeyService, type ApiKeyService } from './api-keys/service.ts';
import { apiKeysRepo } from './store/repositories/api-keys.ts';
import { createOrgService, type OrgService } from './orgs/service.ts';
import { createUserService, type UserService } from './users/service.ts';
import { createTemplateService, type TemplateService } from './templates/service.ts';
import { createAuthenticator, type Authenticate } from './auth/authenticate.ts';
import { createGuards, type Guards } from './auth/guard.ts';
import type Provider from 'oidc-provider';
import { loadKeyMaterial, publicJwks } from './auth/idp/keys.ts';
import { idpKeysRepo } from './store/repositories/idp-keys.ts';
import { oidcRepo } from './store/repositories/oidc.ts';
import { clientIds, createProvider } from './auth/idp/provider.ts';
import { createSignIn, type PasswordHasher, type SignIn } from './auth/idp/sign-in.ts';
import { createAccountsCache } from './auth/accounts-cache.ts';
import { createIdTokenVerifier, discoverIssuer, localIssuer, type TrustedIssuer } from './auth/id-token.ts';
import type { JWK } from 'jose';
import { createBillingService, type BillingService } from './billing/service.ts';
import { requireFreeSeat } from './billing/seats.ts';
import { createRenderService, type RenderService } from './render/service.ts';
import { createRenderPool } from './render/pool.ts';
import { OpenCounter } from './tracking/open-counter.ts';
import { createTrackingService, type TrackingService } from './tracking/service.ts';
import { createAuditService, type AuditService } from './audit/service.ts';
import { createMfaService, type MfaService } from './users/mfa.ts';
import { opensRepo } from './store/repositories/opens.ts';
import type { RateLimiter } from './ratelimit/interface.ts';
import { MemoryRateLimiter } from './ratelimit/memory.ts';
import { RedisRateLimiter } from './ratelimit/redis.ts';

export type Clock = () => Date;

export interface Deps {
  config: Config;
  logger: Logger;
  database: Database;
  redis: Redis | undefined;
  clock: Clock;
  healthChecks: Record<string, HealthCheck>;
  apiKeys: ApiKeyService;
  orgs: OrgService;
  users: UserService;
  templates: TemplateService;
  authenticate: Authenticate;
  guards: Guards;
  provider: Provider;
  signIn: SignIn;
  billing: BillingService;
  render: RenderService;
  opens: OpenCounter;
  tracking: TrackingService;
  audit: AuditService;
  mfa: MfaService;
  /** The stage-wide bucket of authenticated requests, the pixel's own, and the per-client buckets of anonymous ones. */
  limiters: { stage: RateLimiter; pixel: RateLimiter; anon: RateLimiter };
  close(): Promise<void>;
}

export interface DepsOverrides {
  clock?: Clock;
  /** A migrated embedded database to start from (`openDatabase`'s snapshot): the tests' servers. */
  snapshot?: Blob;
  /** The sign-in steps' password hashing (tests count its calls). */
  passwords?: PasswordHasher;
}

export async function createDeps(config: Config, logger: Logger, overrides: DepsOverrides = {}): Promise<Deps> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    timeouts: config.databaseTimeouts,
    onConnectionLost: (err) => logger.warn({ err }, 'database connection lost; the pool opens a new one when needed'),
    snapshot: overrides.snapshot,
  });
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const { applied } = await migrate(database);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let redis: Redis | undefined;
    if (config.redisUrl) {
      redis = connectRedis(config.redisUrl, logger, config.redisTimeouts);
      const r = redis;
      closers.unshift(() => r.quit().catch(() => r.disconnect()));
    }

    const healthChecks: Record<string, HealthCheck> = { database: databaseCheck(database) };
    if (redis) healthChecks.redis = redisCheck(redis);

    const clock = overrides.clock ?? (() => new Date());
    const now = () => clock().getTime();
    // The embedded database belongs to this process alone: nothing changes behind its back, so
    // cached reads live until this process changes them. On a server, CACHE_TTL_MS bounds staleness.
    const cacheTtlMs = database.kind === 'embedded' ? Number.POSITIVE_INFINITY : config.cacheTtlMs;
    const stageLimits = { rate: config.rateLimit.rps, burst: config.rateLimit.burst };
    const pixelLimits = { rate: config.pixelRateLimit.rps, burst: config.pixelRateLimit.burst };
    const anonLimits = { rate: config.anonRateLimit.rps, burst: config.anonRateLimit.burst };
    const limiters = redis
      ? {
          stage: new RedisRateLimiter(redis, stageLimits, `sigsvc:${config.stage}:rl:`, logger, now),
          pixel: new RedisRateLimiter(redis, pixelLimits, `sigsvc:${config.stage}:rl:`, logger, now),
          anon: new RedisRateLimiter(redis, anonLimits, `sigsvc:${config.stage}:rl:`, logger, now),
        }
      : {
          stage: new MemoryRateLimiter(stageLimits, now),
          pixel: new MemoryRateLimiter(pixelLimits, now),
          anon: new MemoryRateLimiter(anonLimits, now),
        };
    const db = database.db;
    const usage = new KeyUsageRecorder((uses) => apiKeysRepo.touch(db, uses), logger);
    closers.unshift(() => usage.close());
    const apiKeys = createApiKeyService({ db, stage: config.stage, cacheTtlMs, usage, clock });
    const orgs = createOrgService({ db, cacheTtlMs, apiKeys });
    const accounts = createAccountsCache({ db, ttlMs: cacheTtlMs });
    const renderPool = createRenderPool({ threads: config.renderThreads });
    closers.unshift(() => renderPool.close());
    const render = createRenderService({
      db,
      orgs,
      pool: renderPool,
      baseUrl: config.baseUrl,
      renderLimitBytes: config.renderLimitBytes,
      cacheTtlMs,
    });
    const userChanged = (orgId: string, userId?: string) => {
      orgs.invalidate(orgId);
      if (userId) {
        accounts.invalidate(userId);
        render.forgetUser(orgId, userId);
      }
    };
    const users = createUserService({ db, seatCheck: requireFreeSeat, onChange: userChanged });
    const templates = createTemplateService({ db, compile: render.compile, onChange: (orgId, templateId) => render.forgetTemplate(orgId, templateId) });
    const opens = new OpenCounter((counts) => opensRepo.add(db, counts), logger);
    closers.unshift(() => opens.close());

    const keys = await loadKeyMaterial(db, { tokenTtlS: Math.max(config.idTokenTtlS, config.accessTokenTtlS), clock });
    const provider = createProvider({ config, db, keys, clock });
    const ids = clientIds(config.stage);
    const issuers: TrustedIssuer[] = [
      localIssuer({
        issuer: config.authUrl,
        audiences: [ids.app, ids.admin],
        staffAudience: ids.admin,
        initialKeys: publicJwks(keys.signing),
        loadPublicKeys: async () =>
          publicJwks((await idpKeysRepo.all(db)).filter((k) => k.use === 'signing').map((k) => k.material as JWK)),
      }),
    ];
    if (config.oidcIssuer) issuers.push(await discoverIssuer(config.oidcIssuer, config.oidcAudiences));
    const idTokens = createIdTokenVerifier({ issuers, clock, current: accounts.current });
    const authenticate = createAuthenticator({ apiKeys, idTokens });
    const signIn = createSignIn({
      db,
      clock,
      hasher: overrides.passwords,
      // Sign-in writes (lockouts, TOTP, passwords) reach the caches as any other account change does.
      onAccountChange: (account) => (account.orgId ? userChanged(account.orgId, account.id) : accounts.invalidate(account.id)),
    });

    const billing = createBillingService({
      db,
      logger,
      clock,
      gracePeriodS: config.gracePeriodS,
      dedupWindowS: config.webhookDedupS,
      onOrgChange: (orgId) => orgs.invalidate(orgId),
    });
    // Event ids older than the dedup window are forgotten every hour.
    const purgeEvents = setInterval(() => {
      billing.purge().catch((err) => logger.warn({ err }, 'purging old payment events failed'));
    }, 3_600_000).unref();
    closers.unshift(async () => clearInterval(purgeEvents));

    // Expired sessions, codes and tokens of the identity provider are purged every 10 minutes.
    const purge = setInterval(() => {
      oidcRepo.purgeExpired(db, clock()).catch((err) => logger.warn({ err }, 'purging expired identity-provider rows failed'));
    }, 600_000).unref();
    closers.unshift(async () => clearInterval(purge));

    return {
      config,
      logger,
      database,
      redis,
      clock,
      healthChecks,
      apiKeys,
      orgs,
      users,
      templates,
      authenticate,
      guards: createGuards(authenticate),
      provider,
      signIn,
      billing,
      render,
      opens,
      tracking: createTrackingService({ db, counter: opens, clock }),
      audit: createAuditService({ db }),
      mfa: createMfaService({ db, users, signIn }),
      limiters,
      async close() {
        for (const close of closers) await close();
      },
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}
