// The SMTP signature gateway (docs/gateway.md), built from what it is given: the domain and
// settings services (for its routes, routes.ts), the engine, a test message, staff's views, and
// the listener to start (main.ts starts it, in the service or alone with `sigsvc gateway`).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Counter } from 'prom-client';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Db } from '../store/db.ts';
import { gatewayRepo } from '../store/repositories/gateway.ts';
import { microsoftRepo } from '../store/repositories/microsoft.ts';
import type { GatewayOutcome } from '../store/schema.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { RenderService } from '../render/module.ts';
import type { UserService } from '../users/module.ts';
import type { WriteContext } from '../audit/record.ts';
import { conflict, notFound } from '../kernel/errors.ts';
import { createAddressLookup, createTxtLookup } from './dns.ts';
import { createDomainService, type DomainService } from './domains.ts';
import { createSettingsService } from './settings.ts';
import { createEngine, type Engine, type EngineDeps } from './engine.ts';
import { createRelay } from './relay.ts';
import { markSignature } from '../render/module.ts';
import { Spool } from './spool.ts';
import { GatewayCounts } from './counts.ts';
import { LRUCache } from 'lru-cache';
import { entryBound } from '../lib/lru.ts';

export interface GatewayDeps {
  db: Db;
  logger: Logger;
  clock: () => Date;
  config: Config;
  metrics: Metrics;
  render: RenderService;
  users: UserService;
  requireOrg(orgId: string): Promise<unknown>;
  /** Replaces the signature's choice; by default the render service's (the org's rules). */
  signatureFor?: EngineDeps['signatureFor'];
}

export function createGateway(deps: GatewayDeps) {
  const { db, logger, clock, config } = deps;
  const gw = config.gateway;
  const hostname = gw.domain ?? new URL(config.baseUrl).hostname;
  const { cached, clear: onChange } = createCache(config.cacheTtlMs);
  const counts = new GatewayCounts(
    (rows) => gatewayRepo.addCounts(db, rows),
    (err) => logger.warn({ err }, 'gateway counts were not written'),
  );
  const domains = createDomainService({ db, lookupTxt: createTxtLookup(config.dnsServers), clock, onChange });
  const lookupAddresses = createAddressLookup(config.dnsServers);
  const settings = createSettingsService({
    db,
    clock,
    allowPrivateNextHop: gw.allowPrivateNextHop,
    lookupAddresses,
    publicName: { domain: gw.domain, port: gw.port ?? 2525 },
    onChange,
    flushCounts: () => counts.flush(),
  });
  const messages = new Counter({
    name: 'gateway_messages_total',
    help: 'Messages through the SMTP gateway, by outcome',
    labelNames: ['outcome'],
    registers: [deps.metrics.registry],
  });
  const relay = createRelay({ hostname, timeoutMs: gw.relayTimeoutMs, allowPrivate: gw.allowPrivateNextHop, lookupAddresses });

  const signatureFor: EngineDeps['signatureFor'] =
    deps.signatureFor ??
    (async (orgId, userId, { reply }) => {
      // The org's rules choose the template: a reply or forward (In-Reply-To or References) takes the reply template.
      const rendered = await deps.render.render(orgId, userId, undefined, null, reply ? 'reply' : 'new');
      return { html: markSignature(rendered.html, userId), text: rendered.text };
    });

  async function record(e: Parameters<EngineDeps['record']>[0]): Promise<void> {
    messages.labels(e.outcome).inc();
    const at = clock();
    if (e.orgId) counts.add(e.orgId, e.outcome, at);
    if (e.outcome === 'refused' || e.outcome === 'failed') {
      await gatewayRepo.recordError(db, {
        org_id: e.orgId ?? null,
        at,
        outcome: e.outcome,
        reason: e.reason.slice(0, 1000),
        correlation_id: e.correlationId,
        client_address: e.remoteAddress,
        sender: e.sender.slice(0, 320),
      });
    }
  }

  const engine = createEngine({
    logger,
    clock,
    hostname,
    failClosed: gw.failClosed,
    relay,
    signatureFor,
    record,
    lookups: engineLookups(db, deps.users, domains, cached),
  });

  return {
    domains,
    settings,
    engine,
    /** GATEWAY_DOMAIN: the org's smart-host name is `<gatewayId>.<domain>`. */
    domain: gw.domain,

    async staffVerify(ctx: { staffId: string; correlationId: string }, orgId: string, domain: string) {
      await deps.requireOrg(orgId);
      return domains.staffVerify(ctx, orgId, domain);
    },

    errors: (filter: { orgId?: string | undefined; from?: Date | undefined; to?: Date | undefined }, limit: number) =>
      gatewayRepo.listErrors(db, filter, limit),

    /** A message from the caller (or `from`) through the engine, as if its mail system sent it. */
    sendTest: (ctx: WriteContext, input: { to: string; from?: string | undefined }) => sendTest({ db, users: deps.users, domains, engine }, ctx, input),

    /** Starts the SMTP listener (GATEWAY_PORT); `port` 0 in tests picks a free one. */
    async listen(overrides: { port?: number } = {}) {
      // Loaded here: smtp-server and its parsers stay out of a service that does not listen.
      const { startListener } = await import('./listener.ts');
      return startListener(
        {
          port: overrides.port ?? gw.port ?? 2525,
          host: gw.host ?? config.host,
          hostname,
          tls: gw.tlsCert && gw.tlsKey ? { certFile: gw.tlsCert, keyFile: gw.tlsKey } : undefined,
          domain: gw.domain,
          maxBytes: gw.maxBytes,
          maxConnections: gw.maxConnections,
          maxConnectionsPerAddress: gw.maxConnectionsPerAddress,
          socketTimeoutMs: gw.socketTimeoutMs,
        },
        {
          logger,
          engine,
          lookups: {
            byGatewayId: (id) => cached(`gateway:${id}`, () => gatewayRepo.findByGatewayId(db, id)),
            withNetworks: () => cached('networks', () => gatewayRepo.withNetworks(db)),
          },
        },
      );
    },

    async close() {
      relay.close();
      await counts.flush();
    },
  };
}

export type Gateway = ReturnType<typeof createGateway>;

/** What every message reads (settings, domains, the sender), cached for CACHE_TTL_MS: a change on
 * this instance clears them at once, another instance's within the TTL (as the API's caches). */
function createCache(ttlMs: number) {
  const cache = new LRUCache<string, { value: unknown }>({ ...entryBound(10_000), ttl: ttlMs });
  return {
    async cached<T>(key: string, load: () => Promise<T>): Promise<T> {
      const hit = cache.get(key);
      if (hit) return hit.value as T;
      const value = await load();
      cache.set(key, { value });
      return value;
    },
    clear: () => cache.clear(),
  };
}

type Cached = ReturnType<typeof createCache>['cached'];

function engineLookups(db: Db, users: UserService, domains: DomainService, cached: Cached): EngineDeps['lookups'] {
  /** Orgs with no tenant id of their own whose connected Microsoft integration has this one. */
  async function microsoftTenantOrgs(tenantId: string): Promise<string[]> {
    const found: string[] = [];
    for (const r of await gatewayRepo.withoutTenant(db)) {
      const ms = await microsoftRepo.find(db, r.org_id);
      if (ms && ms.tenant_id.toLowerCase() === tenantId.toLowerCase()) found.push(r.org_id);
    }
    return found;
  }
  return {
    settings: (orgId) => cached(`settings:${orgId}`, () => gatewayRepo.find(db, orgId)),
    orgsOfTenant: (tenantId) =>
      cached(`tenant:${tenantId.toLowerCase()}`, async () => {
        const own = await gatewayRepo.findByTenant(db, tenantId);
        return own.map((s) => s.org_id).concat(await microsoftTenantOrgs(tenantId));
      }),
    verifiedDomains: (orgId) => cached(`domains:${orgId}`, () => domains.verifiedOf(orgId)),
    verifiedOwner: (domain) => cached(`owner:${domain}`, () => domains.verifiedOwner(domain)),
    liveUser: (orgId, email) =>
      cached(`user:${orgId}:${email}`, async () => {
        const user = await users.findByEmail(orgId, email);
        // A suspended user sends without a signature, like someone who is not a user.
        return user && user.status !== 'suspended' ? { id: user.userId } : undefined;
      }),
  };
}

/** `POST …/gateway/test`: a message from the caller (or `from`, a verified domain's) through the engine. */
async function sendTest(
  deps: { db: Db; users: UserService; domains: DomainService; engine: Engine },
  ctx: WriteContext,
  input: { to: string; from?: string | undefined },
): Promise<{ outcome: GatewayOutcome; reply: string; correlationId: string }> {
  if (!(await gatewayRepo.find(deps.db, ctx.orgId))) throw notFound('Gateway settings');
  let from = input.from;
  if (!from && ctx.principal.kind === 'user') from = (await deps.users.get(ctx.orgId, ctx.principal.userId)).email;
  if (!from) throw conflict('An API key has no address: send `from`, an address of a verified domain.');
  const ours = await deps.domains.verifiedOf(ctx.orgId);
  if (!ours.includes(from.slice(from.lastIndexOf('@') + 1).toLowerCase())) throw conflict(`${from} is not in a verified domain of this organisation.`);
  // Loaded with the first test message, as the relay loads nodemailer with the first message relayed.
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer/index.js');
  const raw = await new MailComposer({
    from,
    to: input.to,
    subject: 'Signature gateway test',
    text: 'This message came through the signature gateway.',
    html: '<html><body><p>This message came through the signature gateway.</p></body></html>',
  })
    .compile()
    .build();
  const spool = new Spool();
  await spool.fill(Readable.from([raw]));
  const correlationId = randomUUID();
  try {
    const proof = { remoteAddress: '127.0.0.1', helo: 'test', provenOrg: ctx.orgId, networks: [] };
    const reply = await deps.engine.handle(proof, { from, to: [input.to], use8BitMime: false }, spool, correlationId);
    return { outcome: reply.outcome, reply: `${reply.code} ${reply.message}`, correlationId };
  } finally {
    await spool.dispose();
  }
}
