// The composition root: the core (core/core.ts), then every capability's module, top to bottom,
// each built from the core and the modules it names, then their timers and the job worker, started
// once everything is built (core/module.ts's startModules). It decides nothing itself: each module
// reads its own settings. Closing stops the worker and the timers, then closes the modules (last
// built first), then the core. Tests call createDeps with their own config (and may override parts,
// such as the clock).
import type { Redis } from 'ioredis';
import type Provider from 'oidc-provider';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Clock } from './lib/clock.ts';
import type { Authenticate } from './kernel/principal.ts';
import type { Database } from './store/db.ts';
import type { Caches } from './cache/namespaces.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Metrics } from './metrics/metrics.ts';
import { MIN_PASSWORD_LENGTH, type PasswordHasher } from './lib/passwords.ts';
import type { Guards, RouteKit } from './http/guard.ts';
import { createCore, type Core } from './core/core.ts';
import type { Limiters } from './ratelimit/limiters.ts';
import type { Refusal } from './ratelimit/hook.ts';
import type { QuotaCounter } from './quota/counter.ts';
import { startModules, type Module } from './core/module.ts';
import { healthModule } from './health/module.ts';
import { upkeepModule } from './upkeep/module.ts';
import { metricsModule } from './metrics/module.ts';
import { auditModule, type AuditService } from './audit/module.ts';
import { secretsModule, type SecretBox } from './secrets/module.ts';
import { mailModule, type Mail } from './mail/module.ts';
import { jobsModule, type JobService } from './jobs/module.ts';
import { apiKeysModule, type ApiKeyService } from './api-keys/module.ts';
import { idpModule, type SignIn } from './idp/module.ts';
import { authModule } from './auth/module.ts';
import { peopleModule, type PeopleService } from './people/module.ts';
import { orgsModule, type OrgService } from './orgs/module.ts';
import { billingModule, type BillingService } from './billing/module.ts';
import { usersModule, type MfaService, type UserImport, type UserService } from './users/module.ts';
import { renderModule, type RenderPool, type RenderService } from './render/module.ts';
import { rulesModule, type RuleService } from './rules/module.ts';
import { clicksModule, type ClickService } from './clicks/module.ts';
import { campaignsModule, type CampaignService, type CampaignsTuning } from './campaigns/module.ts';
import { DEFAULT_STARTER, TEMPLATE_SOURCE_MAX, templatesModule, type TemplateService } from './templates/module.ts';
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, imagesModule, type ImageService } from './images/module.ts';
import { trackingModule, type OpenCounter, type TrackingService } from './tracking/module.ts';
import { deploymentsModule, type DeploymentService } from './deployments/module.ts';
import { directoryModule, directorySyncModule, type DirectoryService } from './directory/module.ts';
import { outlookModule, type OutlookService } from './outlook/module.ts';
import { microsoftModule, type MicrosoftService } from './microsoft/module.ts';
import { googleModule, type GoogleRuns, type GoogleService, type GoogleTuning } from './google/module.ts';
import { adminModule, type OrgAdminService, type StaffAdminService } from './admin/module.ts';
import { webhooksModule } from './webhooks/module.ts';
import { designerModule } from './designer/module.ts';
import { scimModule, type ScimService } from './scim/module.ts';
import { gatewayModule, type Gateway } from './gateway/module.ts';
import { webAppsModule } from './web-apps/module.ts';
import { emitEvents, outboundWebhooksModule, type OutboundWebhooksTuning, type RenderedEvents } from './outbound-webhooks/module.ts';
import type { HealthCheck } from './health/module.ts';
import type { DataDirSnapshot } from './store/seeded-fs.ts';

export type { Clock };

/** The built service: its modules (for app.ts), and each service by name (for tests and tools). */
export interface Deps {
  config: Config;
  logger: Logger;
  database: Database;
  redis: Redis | undefined;
  clock: Clock;
  /** Every cache and what each write forgets (src/cache/namespaces.ts). */
  caches: Caches;
  /** The modules in the order they were built: app.ts registers their routes in it. */
  modules: readonly Module[];
  /** What the routes of the authenticated scope are given: the guards and the billing gate. */
  routeKit: RouteKit;
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
  /** Assignment rules (src/rules/): which template each person gets, for new messages and replies. */
  rules: RuleService;
  /** Campaigns (src/campaigns/): scheduled banners for an audience, and their stats. */
  campaigns: CampaignService;
  /** One tick of the announcer of campaign starts and ends (src/campaigns/announce.ts; tests tick it). */
  announceCampaigns: () => Promise<number>;
  /** `signature.rendered` counted in memory (src/outbound-webhooks/rendered.ts); `flush()` ends its window. */
  renderedEvents: Pick<RenderedEvents, 'flush'>;
  /** Tracked links and their clicks (src/clicks/). */
  clicks: ClickService;
  opens: OpenCounter;
  tracking: TrackingService;
  audit: AuditService;
  images: ImageService;
  userImport: UserImport;
  mfa: MfaService;
  orgAdmin: OrgAdminService;
  staffAdmin: StaffAdminService;
  secrets: SecretBox;
  directory: DirectoryService;
  /** SCIM 2.0 provisioning (src/scim/): tokens, and the users and groups Okta or Entra ID push. */
  scim: ScimService;
  /** The SMTP signature gateway: domains, settings, the engine and its listener (src/gateway/). */
  gateway: Gateway;
  deployments: DeploymentService;
  google: GoogleService;
  googleRuns: GoogleRuns;
  outlook: OutlookService;
  microsoft: MicrosoftService;
  /** The token buckets (src/ratelimit/limiters.ts), and how a throttle refuses. */
  limiters: Limiters;
  refusal: Refusal;
  /** The monthly quota of API-key requests, counted in memory and added in batches (src/quota/). */
  quota: QuotaCounter;
  passwords: PasswordHasher;
  metrics: Metrics;
  queue: JobQueue;
  jobs: JobService;
  mail: Mail;
  people: PeopleService;
  close(): Promise<void>;
}

export interface DepsOverrides {
  clock?: Clock;
  /** A migrated embedded database to start from (`openDatabase`'s snapshot): the tests' servers. */
  snapshot?: DataDirSnapshot;
  /** The services' password hashing (tests count its calls, and hash at a lower cost). */
  passwords?: PasswordHasher;
  /** Tests: do not start the job worker (they drive or start it themselves). */
  jobWorker?: boolean;
  /** Tests: how long a directory's dry run may read it (lib/deadline.ts's default otherwise). */
  dryRunDeadlineMs?: number;
  /** Tests: quicker retries of Google's 429/5xx and of a run that finds its org busy, a faster scheduler (the one of every directory and the push, src/directory/scheduler.ts), fewer pushes at once. */
  google?: GoogleTuning & { schedulerTickMs?: number };
  /**
   * Tests: an open database and a render pool to use instead of making them (a test process's
   * servers share them: each costs ~0.5 s of CPU to make). They stay the caller's: closing the
   * service leaves them open.
   */
  shared?: { database?: Database; renderPool?: RenderPool };
  /** Tests: outbound webhooks' retry waits, answer timeout and window of `signature.rendered`. */
  webhooks?: OutboundWebhooksTuning;
  /** Tests: how often campaign starts and ends are announced. */
  campaigns?: CampaignsTuning;
}

export async function createDeps(config: Config, logger: Logger, overrides: DepsOverrides = {}): Promise<Deps> {
  const { clock, snapshot, passwords, jobWorker } = overrides;
  const core = await createCore(config, logger, { clock, snapshot, passwords, jobWorker, shared: { database: overrides.shared?.database } });
  const modules: Module[] = [];
  const add = <M extends Module>(module: M): M => {
    modules.push(module);
    return module;
  };
  try {
    const m = await buildModules(core, overrides, add);

    const stop = startModules(modules, core.queue, { jobWorker: core.jobWorker, logger });
    return {
      ...pick(core, ['config', 'logger', 'database', 'redis', 'clock', 'caches', 'limiters', 'refusal', 'quota', 'passwords', 'metrics', 'queue']),
      modules,
      routeKit: { guards: m.auth.service.guards, billing: m.billing.hooks },
      healthChecks: m.health.service,
      ...m.auth.service,
      ...pick(m.idp.service, ['provider', 'signIn']),
      ...m.admin.service,
      apiKeys: m.apiKeys.service,
      orgs: m.orgs.service,
      users: m.users.service,
      userImport: m.users.userImport,
      mfa: m.users.mfa,
      templates: m.templates.service,
      billing: m.billing.service,
      render: m.render.service,
      rules: m.rules.service,
      campaigns: m.campaigns.service,
      announceCampaigns: m.campaigns.announce,
      renderedEvents: m.webhooks.rendered,
      clicks: m.clicks.service,
      opens: m.tracking.opens,
      tracking: m.tracking.service,
      audit: m.audit.service,
      images: m.images.service,
      secrets: m.secrets.service,
      directory: m.directory.service,
      scim: m.scim.service,
      gateway: m.gateway.service,
      deployments: m.deployments.service,
      google: m.google.service,
      googleRuns: m.google.runs,
      outlook: m.outlook.service,
      microsoft: m.microsoft.service,
      jobs: m.jobs.service,
      mail: m.mail.service,
      people: m.people.service,
      async close() {
        await stop();
        await core.close();
      },
    };
  } catch (err) {
    for (const module of modules.reverse()) await module.close?.().catch(() => {});
    await core.close();
    throw err;
  }
}

/** Every module, in the order each needs the ones before it; `add` lists each for startModules. */
async function buildModules(core: Core, overrides: DepsOverrides, add: <M extends Module>(module: M) => M) {
  const { config } = core;
  const { dryRunDeadlineMs } = overrides;
  add(upkeepModule(core));
  const health = add(healthModule(core));
  add(metricsModule({ metrics: core.metrics, token: config.metricsToken }));
  const audit = add(auditModule(core));
  const secrets = add(secretsModule(core));
  const mail = add(mailModule(core));
  const jobs = add(jobsModule(core));
  const apiKeys = add(apiKeysModule(core));
  const idp = add(await idpModule(core));
  const auth = add(await authModule(core, { apiKeys, idp }));
  const people = add(peopleModule(core, { mail, idp }));
  const orgs = add(orgsModule(core, { apiKeys, invite: people.service.inviteInTx, starter: DEFAULT_STARTER }));
  const billing = add(billingModule(core, { orgs }));
  const images = add(await imagesModule(core));
  const users = add(usersModule(core, { people, idp, images }));
  // Before render: every signature served is a `signature.rendered` event (rendered.ts).
  const webhooks = add(outboundWebhooksModule(core, { secrets }, overrides.webhooks));
  const rules = add(rulesModule(core));
  const clicks = add(clicksModule(core));
  const campaigns = add(campaignsModule(core, { rules, clicks, emitEvents }, overrides.campaigns));
  const render = add(
    renderModule(
      core,
      { orgs, users, rules, campaigns, clicks },
      {
        pool: overrides.shared?.renderPool,
        onRendered: (orgId, r, correlationId) => webhooks.rendered.record(orgId, { userId: r.userId, templateId: r.templateId, bytes: r.bytes, correlationId }),
      },
    ),
  );
  const templates = add(templatesModule(core, { render }));
  add(designerModule(core));
  const tracking = add(trackingModule(core, { campaignOpen: campaigns.campaignOpen }));
  const deployments = add(deploymentsModule(core));
  const directory = add(directoryModule(core, { images: images.service }, { dryRunDeadlineMs }));
  const outlook = add(outlookModule(core, { orgs, render, secrets }));
  const microsoft = add(microsoftModule(core, { secrets, directory }));
  const google = add(googleModule(core, { secrets, directory, render, orgs }, overrides.google));
  const connectors = [google.connector, microsoft.connector];
  add(directorySyncModule(core, { directory, connectors, schedules: [google.schedule] }, { tickMs: overrides.google?.schedulerTickMs }));
  const scim = add(scimModule(core, { images }));
  const gateway = add(gatewayModule(core, { orgs, render, users }));
  const admin = add(adminModule(core, { orgs, mail }));
  add(webhooksModule(core, { billing }));
  const limits = { templateSourceChars: TEMPLATE_SOURCE_MAX, imageBytes: IMAGE_MAX_BYTES, imageSidePx: IMAGE_MAX_SIDE, passwordMinChars: MIN_PASSWORD_LENGTH };
  add(webAppsModule(core, { clientIds: idp.service.clientIds, limits }));
  return {
    health,
    audit,
    secrets,
    mail,
    jobs,
    apiKeys,
    idp,
    auth,
    people,
    orgs,
    billing,
    images,
    users,
    webhooks,
    rules,
    clicks,
    campaigns,
    render,
    templates,
    tracking,
    deployments,
    directory,
    outlook,
    microsoft,
    google,
    scim,
    gateway,
    admin,
  };
}

function pick<T, K extends keyof T>(from: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}
