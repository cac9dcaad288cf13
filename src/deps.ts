// The composition root: builds every long-lived dependency from the config, once, wires them
// together, and closes them in reverse order. It decides nothing itself: each capability owns its
// settings and timers (cache lifetimes in src/cache/namespaces.ts, purge intervals with billing
// and the identity provider). Tests call createDeps with their own config (and may override
// parts, such as the clock).
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
import { clientIds, createProvider } from './auth/idp/provider.ts';
import { createSignIn, type PasswordHasher, type SignIn } from './auth/idp/sign-in.ts';
import { createAccountsCache } from './auth/accounts-cache.ts';
import { startPurgingExpired } from './auth/idp/purge.ts';
import { createCaches, type Caches } from './cache/namespaces.ts';
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
  /** Every cache and what each write forgets (src/cache/namespaces.ts). */
  caches: Caches;
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
    const caches = createCaches({ mode: database.kind, ttlMs: config.cacheTtlMs });
    const { invalidate } = caches;
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
    const apiKeys = createApiKeyService({ db, stage: config.stage, caches, usage, clock });
    const orgs = createOrgService({ db, caches, apiKeys });
    const accounts = createAccountsCache({ db, caches });
    const renderPool = createRenderPool({ threads: config.renderThreads });
    closers.unshift(() => renderPool.close());
    const render = createRenderService({
      db,
      caches,
      orgs,
      pool: renderPool,
      baseUrl: config.baseUrl,
      renderLimitBytes: config.renderLimitBytes,
    });
    const users = createUserService({ db, invalidate, seatCheck: requireFreeSeat });
    const templates = createTemplateService({ db, compile: render.compile, invalidate });
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
    const idTokens = createIdTokenVerifier({ issuers, clock, cache: caches.idTokens, current: accounts.current });
    const authenticate = createAuthenticator({ apiKeys, idTokens });
    const signIn = createSignIn({ db, clock, hasher: overrides.passwords, invalidate });

    const billing = createBillingService({
      db,
      logger,
      clock,
      gracePeriodS: config.gracePeriodS,
      dedupWindowS: config.webhookDedupS,
      invalidate,
    });
    closers.unshift(billing.startPurging());
    closers.unshift(startPurgingExpired({ db, logger, clock }));

    return {
      config,
      logger,
      database,
      redis,
      clock,
      caches,
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
      mfa: createMfaService({ db, users, signIn, invalidate }),
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
