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
import { createSignIn, type SignIn } from './auth/idp/sign-in.ts';
import { registerPeopleJobs } from './people/jobs.ts';
import { scryptHasher, type PasswordHasher } from './auth/passwords.ts';
import { createAccountsCache } from './auth/accounts-cache.ts';
import { startPurgingExpired } from './auth/idp/purge.ts';
import { createCaches, type Caches } from './cache/namespaces.ts';
import { createIdTokenVerifier, discoverIssuer, localIssuer, type TrustedIssuer } from './auth/id-token.ts';
import type { JWK } from 'jose';
import { createBillingService, type BillingService } from './billing/service.ts';
import { requireFreeSeat } from './billing/seats.ts';
import { createRenderService, type RenderService } from './render/service.ts';
import { createRenderPool, type RenderPool } from './render/pool.ts';
import { OpenCounter } from './tracking/open-counter.ts';
import { createTrackingService, type TrackingService } from './tracking/service.ts';
import { createAuditService, type AuditService } from './audit/service.ts';
import { createImageService, type ImageService } from './images/service.ts';
import { createUserImport, type UserImport } from './users/import.ts';
import { createMfaService, type MfaService } from './users/mfa.ts';
import { opensRepo } from './store/repositories/opens.ts';
import { createLimiters, type Limiters } from './ratelimit/limiters.ts';
import { QuotaCounter } from './quota/counter.ts';
import { createJobQueue, enqueue, type JobQueue } from './jobs/queue.ts';
import { createJobService, type JobService } from './jobs/service.ts';
import { createMail, type Mail } from './mail/mailer.ts';
import { createPeopleService, type PeopleService } from './people/service.ts';
import { createSecretBox, type SecretBox } from './secrets/secret-box.ts';
import { createDirectoryService, type DirectoryService } from './directory/service.ts';
import { createDeploymentService, type DeploymentService } from './deployments/service.ts';
import { createGoogleClient, type RetryPolicy } from './google/client.ts';
import { createGoogleService, type GoogleService } from './google/service.ts';
import { createGoogleRuns, type GoogleRuns } from './google/runs.ts';
import { createGoogleMetrics } from './google/metrics.ts';
import { pushSchedule, registerGooglePushJob } from './google/jobs.ts';
import { createGoogleLease } from './google/lease.ts';
import { googleConnector } from './google/connector.ts';
import { createDirectorySync } from './directory/sync.ts';
import { registerDirectorySyncJobs } from './directory/jobs.ts';
import { startScheduler, syncSchedule, tickMsFor } from './directory/scheduler.ts';
import { createOrgAdminService, type OrgAdminService } from './admin/org-admin.ts';
import { createStaffAdminService, type StaffAdminService } from './admin/staff-admin.ts';
import { createStaffInviter } from './admin/staff-invite.ts';
import { createOutlookService, type OutlookService } from './outlook/service.ts';
import { FetchRecorder } from './outlook/fetch-recorder.ts';
import { outlookRepo } from './store/repositories/outlook.ts';
import { createGraphClient } from './microsoft/graph.ts';
import { createMicrosoftService, type MicrosoftService } from './microsoft/service.ts';
import { microsoftConnector } from './microsoft/connector.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { systemClock, type Clock } from './lib/clock.ts';

export type { Clock } from './lib/clock.ts';

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
  images: ImageService;
  userImport: UserImport;
  mfa: MfaService;
  /** The staff API's services (src/admin/). */
  orgAdmin: OrgAdminService;
  staffAdmin: StaffAdminService;
  /** AES-256-GCM under SECRETS_KEY, for the secrets integrations store (src/secrets/). */
  secrets: SecretBox;
  /** Applies a directory's users to an org (src/directory/): Google Workspace and Microsoft Entra syncs. */
  directory: DirectoryService;
  /** Per-user deployment state of signatures in mailboxes (src/deployments/). */
  deployments: DeploymentService;
  /** Google Workspace: the connection (src/google/service.ts) and the Gmail push job body (the sync is src/directory/sync.ts). */
  google: GoogleService;
  googleRuns: GoogleRuns;
  /** The Outlook add-in: its key, manifest and the signature route's answers (src/outlook/). */
  outlook: OutlookService;
  /** The Microsoft Entra connection and its directory sync (src/microsoft/). */
  microsoft: MicrosoftService;
  /** The token buckets (src/ratelimit/limiters.ts). */
  limiters: Limiters;
  /** The monthly quota of API-key requests, counted in memory and added in batches (src/quota/). */
  quota: QuotaCounter;
  passwords: PasswordHasher;
  /** This instance's Prometheus registry and the metrics the service records (src/metrics/). */
  metrics: Metrics;
  /** The durable job queue: capabilities register their kinds' handlers on it (src/jobs/queue.ts). */
  queue: JobQueue;
  jobs: JobService;
  /** Mail through the job queue (src/mail/); `configured` is false without SMTP_URL. */
  mail: Mail;
  /** Invitations, password reset, one's own password (src/people/). */
  people: PeopleService;
  close(): Promise<void>;
}

export interface DepsOverrides {
  clock?: Clock;
  /** A migrated embedded database to start from (`openDatabase`'s snapshot): the tests' servers. */
  snapshot?: Blob;
  /** The services' password hashing (tests count its calls, and hash at a lower cost). */
  passwords?: PasswordHasher;
  /** Tests: do not start the job worker (they drive or start it themselves). */
  jobWorker?: boolean;
  /** Tests: how long a directory's dry run may read it (lib/deadline.ts's default otherwise). */
  dryRunDeadlineMs?: number;
  /** Tests: quicker retries of Google's 429/5xx and of a run that finds its org busy, a faster scheduler (the one of every directory and the push, src/directory/scheduler.ts), fewer pushes at once. */
  google?: { retry?: Partial<RetryPolicy>; schedulerTickMs?: number; pushConcurrency?: number; patchesPerSecond?: number; busyRetryMs?: number };
  /**
   * Tests: an open database and a render pool to use instead of making them (a test process's
   * servers share them: each costs ~0.5 s of CPU to make). They stay the caller's: closing the
   * service leaves them open.
   */
  shared?: { database?: Database; renderPool?: RenderPool };
}

export async function createDeps(config: Config, logger: Logger, overrides: DepsOverrides = {}): Promise<Deps> {
  const shared = overrides.shared ?? {};
  const database =
    shared.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      timeouts: config.databaseTimeouts,
      onConnectionLost: (err) => logger.warn({ err }, 'database connection lost; the pool opens a new one when needed'),
      snapshot: overrides.snapshot,
    }));
  const closers: (() => Promise<unknown>)[] = shared.database ? [] : [() => database.close()];
  const metrics = createMetrics();
  metrics.observeDatabasePool(() => database.poolStats());
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

    const clock = overrides.clock ?? systemClock;
    const now = () => clock().getTime();
    const caches = createCaches({ mode: database.kind, ttlMs: config.cacheTtlMs });
    const { invalidate } = caches;
    const limiters = createLimiters(config, redis, logger, now);
    const db = database.db;
    const quota = new QuotaCounter({ db, clock, defaultLimit: config.quotaRequestsPerMonth, logger });
    closers.unshift(() => quota.close());
    const passwords = overrides.passwords ?? scryptHasher;
    // The durable job queue, made first so that every capability can register its handlers on it;
    // its worker starts last, and stops first (below). A `/metrics` counter of jobs by kind and
    // outcome (/metrics) is recorded through its onOutcome hook.
    const queue = createJobQueue({ db, logger, options: { ...config.jobs, onOutcome: (kind, outcome) => metrics.jobFinished(kind, outcome) } });
    const mail = createMail({ smtpUrl: config.smtpUrl, from: config.mailFrom, queue, logger, db, clock, perOrgPerHour: config.mailPerOrgPerHour });
    closers.unshift(async () => mail.close());
    const usage = new KeyUsageRecorder((uses) => apiKeysRepo.touch(db, uses), logger);
    closers.unshift(() => usage.close());
    const apiKeys = createApiKeyService({ db, stage: config.stage, caches, usage, clock });
    const orgs = createOrgService({ db, caches, apiKeys, passwords, invite: (tx, user) => people.inviteInTx(tx, user) });
    const accounts = createAccountsCache({ db, caches });
    const renderPool = shared.renderPool ?? createRenderPool({ threads: config.renderThreads });
    if (!shared.renderPool) closers.unshift(() => renderPool.close());
    const render = createRenderService({
      db,
      caches,
      orgs,
      pool: renderPool,
      baseUrl: config.baseUrl,
      renderLimitBytes: config.renderLimitBytes,
      metrics,
    });
    // Invitations are made by the people service (created below, with the sign-in), in the creating transaction.
    const users = createUserService({ db, invalidate, seatCheck: requireFreeSeat, passwords, invite: (tx, user) => people.inviteInTx(tx, user) });
    const templates = createTemplateService({ db, compile: render.compile, invalidate, baseUrl: config.baseUrl });
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
    const signIn = createSignIn({ db, clock, hasher: passwords, invalidate });
    const people: PeopleService = createPeopleService({
      db,
      clock,
      logger,
      mail,
      passwords,
      signIn,
      invalidate,
      authUrl: config.authUrl,
      invitationTtlS: config.invitationTtlS,
      passwordResetTtlS: config.passwordResetTtlS,
      resetMailsPerAddressPerHour: config.resetMailsPerAddressPerHour,
    });
    registerPeopleJobs(queue, people);

    const billing = createBillingService({
      db,
      logger,
      clock,
      gracePeriodS: config.gracePeriodS,
      dedupWindowS: config.webhookDedupS,
      invalidate,
    });
    closers.unshift(billing.startPurging());
    const secrets = createSecretBox(config.secretsKey, config.secretsKeysPrevious);
    const addinFetches = new FetchRecorder((fetches) => outlookRepo.recordFetches(db, fetches), logger);
    closers.unshift(() => addinFetches.close());
    const outlook = createOutlookService({
      db,
      caches,
      orgs,
      render,
      secrets,
      recorder: addinFetches,
      clock,
      baseUrl: config.baseUrl,
      appUrl: config.appUrl,
    });
    const directory = createDirectoryService({ db, invalidate, seatCheck: requireFreeSeat, clock });
    const directorySync = createDirectorySync({ db, directory, dryRunDeadlineMs: overrides.dryRunDeadlineMs });
    closers.unshift(startPurgingExpired({ db, logger, clock }));

    const googleMetrics = createGoogleMetrics(metrics.registry);
    const googleClient = createGoogleClient({
      endpoints: config.google,
      retry: overrides.google?.retry,
      patchesPerSecond: overrides.google?.patchesPerSecond,
      onRequest: googleMetrics.request,
    });
    const googleLease = createGoogleLease({ db, enqueue, clock, busyRetryMs: overrides.google?.busyRetryMs });
    // Every directory an org can connect: each brings its sync, its job and its schedule.
    const connectors = {
      google: googleConnector({ db, secrets, client: googleClient, enqueue, lease: googleLease, syncIntervalS: config.google.syncIntervalS }),
      microsoft: microsoftConnector({
        db,
        secrets,
        graph: createGraphClient({ loginUrl: config.microsoft.loginUrl, graphUrl: config.microsoft.graphUrl, clock }),
        clock,
        syncIntervalS: config.microsoft.syncIntervalS,
      }),
    };
    const microsoft = createMicrosoftService({ db, secrets, directory, sync: directorySync, connector: connectors.microsoft });
    const googleRuns = createGoogleRuns({
      db,
      secrets,
      client: googleClient,
      render,
      orgs,
      clock,
      pushConcurrency: overrides.google?.pushConcurrency,
      metrics: googleMetrics,
      lease: googleLease,
    });
    const google = createGoogleService({ db, secrets, client: googleClient, directory, sync: directorySync, connector: connectors.google, enqueue, syncIntervalS: config.google.syncIntervalS });
    const allConnectors = Object.values(connectors);
    registerDirectorySyncJobs({ queue, db, sync: directorySync, connectors: allConnectors });
    registerGooglePushJob({ queue, db, runs: googleRuns });
    closers.unshift(
      startScheduler({
        db,
        queue,
        logger,
        schedules: [...allConnectors.map(syncSchedule), pushSchedule],
        tickMs: overrides.google?.schedulerTickMs ?? tickMsFor(allConnectors),
      }),
    );

    // Every capability registered its job handlers above: the worker may start claiming. It stops
    // before anything its handlers use closes (closers run from the last added).
    if (overrides.jobWorker !== false) queue.start();
    closers.unshift(() => queue.stop());

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
      images: createImageService({ db, baseUrl: config.baseUrl, caches }),
      userImport: createUserImport({ db, users }),
      mfa: createMfaService({ db, users, signIn, invalidate }),
      orgAdmin: createOrgAdminService({ db, orgs, clock, mailConfigured: mail.configured, invalidate, quotaChanged: (orgId) => quota.forget(orgId) }),
      staffAdmin: createStaffAdminService({
        db,
        clock,
        invalidate,
        mailConfigured: mail.configured,
        invite: createStaffInviter({ mail, authUrl: config.authUrl, adminUrl: config.adminUrl, invitationTtlS: config.invitationTtlS }),
      }),
      secrets,
      directory,
      microsoft,
      deployments: createDeploymentService({ db }),
      google,
      googleRuns,
      outlook,
      limiters,
      quota,
      passwords,
      metrics,
      queue,
      jobs: createJobService({ db }),
      mail,
      people,
      async close() {
        for (const close of closers) await close();
      },
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}
