// buildApp(deps): the whole HTTP surface, with nothing started. Tests import it; main.ts listens.
// What applies to every route is http/server.ts's; the routes are the modules' (deps.ts lists them):
// first each module's public routes, then each module's routes of the authenticated scope.
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.ts';
import { createHttpServer } from './http/server.ts';
import { throttle, throttleByCaller } from './ratelimit/hook.ts';
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
  // "A request's path"): authenticated requests share
  // the stage's bucket; anonymous ones are keyed by the client's address (request.ip: the socket's,
  // or what a TRUST_PROXY proxy forwarded).
  const { rateLimit, anonRateLimit, retryAfterS } = config;
  const byCaller = throttleByCaller({
    authenticated: throttle(deps.limiters.stage, { limit: rateLimit.burst, retryAfterS, bucketOf: () => 'stage' }),
    anonymous: throttle(deps.limiters.anon, { limit: anonRateLimit.burst, retryAfterS, bucketOf: (request) => `anon:${request.ip}` }),
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
