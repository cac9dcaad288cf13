// buildApp(deps): the whole HTTP surface, with nothing started. Tests import it; main.ts listens.
// What applies to every route is http/server.ts's; the routes are the modules' (deps.ts lists them):
// first each module's public routes, then each module's routes of the authenticated scope.
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.ts';
import { createHttpServer } from './http/server.ts';
import { inSequence, orgBucket, throttle, throttleByCaller, throttleInOrder } from './ratelimit/hook.ts';
import { quotaStep } from './quota/hook.ts';
import { allowedWebOrigins } from './web-apps/module.ts';
import { PROVIDER_ENDPOINTS } from './idp/module.ts';

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const { config, modules } = deps;
  const app = await createHttpServer({
    config,
    logger: deps.logger,
    metrics: deps.metrics,
    corsOrigins: allowedWebOrigins(config),
    catchAll: { prefix: new URL(config.authUrl).pathname.replace(/\/$/, ''), endpoints: PROVIDER_ENDPOINTS },
  });

  // Outside the authenticated scope: health, metrics, the identity provider and its pages, the web
  // apps, public images, the pixel, the add-in's route, the webhook. Each brings its own limits
  // (sign-in has its own; the pixel and the add-in their buckets; the webhook is signed).
  for (const module of modules) for (const plugin of module.public ?? []) await app.register(plugin);

  // Throttling (docs/api.md, "Rate limits"; the order of a request's steps: docs/architecture.md,
  // "A request's path"). An authenticated request takes its org's token before the stage's, so an
  // org past its own bucket is refused before it can drain the stage's; then an API-key request
  // counts against its org's monthly quota. Anonymous callers are keyed by their address
  // (request.ip: the socket's, or what a TRUST_PROXY proxy forwarded).
  const { limiters, refusal } = deps;
  const byCaller = throttleByCaller({
    authenticated: inSequence(
      throttleInOrder(refusal, [
        { limiter: limiters.org, limit: config.orgRateLimit.burst, scope: 'org', bucketOf: orgBucket('org:') },
        { limiter: limiters.stage, limit: config.rateLimit.burst, scope: 'stage', bucketOf: () => 'stage' },
      ]),
      quotaStep(deps.quota, refusal),
    ),
    anonymous: throttle(limiters.anon, { limit: config.anonRateLimit.burst, refusal, scope: 'anonymous', bucketOf: (request) => `anon:${request.ip}` }),
  });
  // The org and staff routes: every route in this scope authenticates, then takes its token; each
  // route lists the rest of its steps (authorize, the billing gate on writes), and its schema the
  // validation.
  await app.register(async (api) => {
    api.addHook('onRequest', deps.guards.authenticate);
    api.addHook('onRequest', byCaller);
    for (const module of modules) for (const plugin of module.api?.(deps.routeKit) ?? []) await api.register(plugin);
  });
  return app;
}
