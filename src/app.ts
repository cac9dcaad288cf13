// buildApp(deps): the whole HTTP surface, with nothing started. Tests import it; main.ts listens.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { openApiOptions } from './http/openapi.ts';
import { serializerCompiler } from './http/serializer.ts';
import type { Deps } from './deps.ts';
import { CORRELATION_HEADER, correlationIdOf } from './http/correlation.ts';
import { frameworkErrors, installErrorHandling } from './http/error-handler.ts';
import { healthRoutes } from './health/routes.ts';
import { orgRoutes } from './orgs/routes.ts';
import { userRoutes } from './users/routes.ts';
import { templateRoutes } from './templates/routes.ts';
import { apiKeyRoutes } from './api-keys/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { imageRoutes, publicImageRoutes } from './images/routes.ts';
import { userImportRoutes } from './users/import-routes.ts';
import { photoRoutes } from './users/photo-routes.ts';
import { interactionRoutes } from './auth/idp/interactions.ts';
import { handToProvider, logProviderErrors } from './auth/idp/hooks.ts';
import { signInAttempts } from './auth/idp/attempts.ts';
import { logoutRoutes } from './auth/idp/logout-routes.ts';
import { clientCallbacks, pageHeaders } from './auth/idp/views.ts';
import { mfaRoutes } from './users/mfa-routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { renderRoutes } from './render/routes.ts';
import { opensRoutes, pixelRoutes } from './tracking/routes.ts';
import { pictureRoutes } from './designer/picture-routes.ts';
import { deploymentRoutes } from './deployments/routes.ts';
import { googleRoutes } from './google/routes.ts';
import { inSequence, orgBucket, throttle, throttleByCaller, throttleInOrder } from './ratelimit/hook.ts';
import { quotaStep } from './quota/hook.ts';
import { createBillingHooks } from './billing/hooks.ts';
import { logCompleted } from './http/request-log.ts';
import { adminOrgRoutes } from './admin/org-routes.ts';
import { adminStaffRoutes } from './admin/staff-routes.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { jobRoutes } from './jobs/routes.ts';
import { addinRoutes, outlookRoutes } from './outlook/routes.ts';
import { microsoftRoutes } from './microsoft/routes.ts';
import { webAppRoutes } from './web-apps/routes.ts';
import { allowedWebOrigins } from './web-apps/origins.ts';
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from './images/service.ts';
import { TEMPLATE_SOURCE_MAX } from './templates/schemas.ts';
import { MIN_PASSWORD_LENGTH } from './auth/passwords.ts';
import cors from '@fastify/cors';
import { clientIds } from './auth/idp/provider.ts';
import { peoplePageRoutes } from './people/page-routes.ts';
import { peopleRoutes } from './people/routes.ts';
import { starterRoutes } from './templates/starter-routes.ts';
import { signatureRoutes } from './render/signature-routes.ts';

/** The identity provider's fixed endpoints (Cognito's paths), each its own route in the metrics. */
const PROVIDER_ENDPOINTS = new Set([
  '/oauth2/authorize',
  '/oauth2/token',
  '/oauth2/userInfo',
  '/oauth2/revoke',
  '/logout',
  '/.well-known/openid-configuration',
  '/.well-known/jwks.json',
]);

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: correlationIdOf,
    // One log line per request, written by the onResponse hook below, labelled with the correlation id.
    logController: new LogController({ requestIdLogLabel: 'correlationId', disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // request.ip (throttle keys, sign-in limits) is the socket's address unless it is a proxy
    // TRUST_PROXY names; then X-Forwarded-For's nearest untrusted hop. The identity provider's
    // URLs never follow forwarded headers (auth/idp/hooks.ts pins them to AUTH_URL).
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    return503OnClosing: true,
    // Requests the HTTP parser refuses never reach a route; they still get the envelope.
    clientErrorHandler: (_err, socket) => {
      if (!socket.writable) return;
      const correlationId = randomUUID();
      const body = JSON.stringify({ error: { code: 'BAD_REQUEST', message: 'The request is not valid HTTP.', correlationId } });
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Correlation-Id: ${correlationId}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  if (deps.logger.isLevelEnabled('info')) {
    app.addHook('onResponse', (request, reply, done) => {
      logCompleted(request, reply);
      done();
    });
  }
  // Every answer counts in the metrics, by the route's pattern (an unmatched URL is `unmatched`:
  // raw URLs would make a series per id). The identity provider answers under one catch-all route;
  // its fixed endpoints get a series each (the token endpoint's latency is worth seeing apart).
  const { metrics } = deps;
  const providerRoute = `${new URL(config.authUrl).pathname.replace(/\/$/, '')}/*`;
  const providerPrefix = providerRoute.slice(0, -2);
  const routeOf = (request: FastifyRequest): string => {
    const route = request.routeOptions.url;
    if (route !== providerRoute) return route ?? 'unmatched';
    const url = (request.raw as { originalUrl?: string }).originalUrl ?? request.url;
    const path = url.split('?')[0]?.slice(providerPrefix.length) ?? '';
    return PROVIDER_ENDPOINTS.has(path) ? providerPrefix + path : route;
  };
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  installErrorHandling(app, { bodyLimitBytes: config.bodyLimitBytes });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header(CORRELATION_HEADER, request.id);
    done();
  });

  // The web apps on another origin than the API's call it from the browser: exactly those origins
  // may (docs/web-apps.md, "What the server adds"); with both apps on BASE_URL's origin no CORS header is sent at all.
  const webOrigins = allowedWebOrigins(config);
  if (webOrigins.length > 0) {
    await app.register(cors, {
      origin: webOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      exposedHeaders: ['Retry-After', CORRELATION_HEADER, 'ETag'],
      maxAge: 600,
    });
  }

  await app.register(swagger, openApiOptions(config.baseUrl));
  // The API reference: Swagger UI's own files (scripts and styles from here; it sets inline styles),
  // never framed (docs/api.md, "Signing in (OpenID Connect)").
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP:
      "default-src 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
      "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY');
        done();
      },
    },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes(deps.healthChecks));
  await app.register(metricsRoutes({ metrics, token: config.metricsToken }));

  // The identity provider answers under AUTH_URL's path, except our sign-in pages, which are more
  // specific Fastify routes.
  const authPath = new URL(config.authUrl).pathname.replace(/\/$/, '');
  logProviderErrors(deps.provider, deps.logger);
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: `${authPath}/*`,
    schema: { hide: true },
    onRequest: handToProvider(deps.provider, config.authUrl),
    handler: async () => undefined,
  });
  // The sign-in pages and the people pages under AUTH_URL: one set of headers, one per-address
  // limit of sign-in attempts (the shared limiter: in Redis when REDIS_URL is set).
  const takeAttempt = signInAttempts(deps.limiters.signIn, config.signInAttemptsPerMinute);
  const idpPageHeaders = pageHeaders(clientCallbacks(config));
  await app.register(
    interactionRoutes({
      provider: deps.provider,
      signIn: deps.signIn,
      clock: deps.clock,
      stage: config.stage,
      authUrl: config.authUrl,
      authPath,
      staffSignInTtlS: config.refreshTokenTtlAdminS,
      takeAttempt,
      pageHeaders: idpPageHeaders,
    }),
  );
  await app.register(logoutRoutes({ provider: deps.provider, signIn: deps.signIn, authUrl: config.authUrl, authPath, pageHeaders: idpPageHeaders }));
  await app.register(
    peoplePageRoutes({
      people: deps.people,
      provider: deps.provider,
      authUrl: config.authUrl,
      authPath,
      appUrl: config.appUrl,
      adminUrl: config.adminUrl,
      sessionTtlS: Math.max(config.refreshTokenTtlAppS, config.refreshTokenTtlAdminS),
      takeAttempt,
      pageHeaders: idpPageHeaders,
      clock: deps.clock,
    }),
  );
  // Throttling (docs/api.md, "Rate limits"; the order of a request's steps: docs/architecture.md,
  // "A request's path"). Health, the identity provider's pages and the webhook take no token
  // (sign-in has its own limits; the webhook is signed). An authenticated request takes its org's
  // token before the stage's, so an org past its own bucket is refused before it can drain the
  // stage's; then an API-key request counts against its org's monthly quota. Anonymous callers are
  // keyed by their address (request.ip: the socket's, or what a TRUST_PROXY proxy forwarded). On
  // the public routes the per-address bucket comes first, for the same reason.
  const { limiters } = deps;
  const refusal = { retryAfterS: config.retryAfterS, delayMs: config.throttleRefusalDelayMs };
  const { rateLimit, pixelRateLimit, anonRateLimit } = config;
  const byCaller = throttleByCaller({
    authenticated: inSequence(
      throttleInOrder(refusal, [
        { limiter: limiters.org, limit: config.orgRateLimit.burst, scope: 'org', bucketOf: orgBucket('org:') },
        { limiter: limiters.stage, limit: rateLimit.burst, scope: 'stage', bucketOf: () => 'stage' },
      ]),
      quotaStep(deps.quota, refusal),
    ),
    anonymous: throttle(limiters.anon, { limit: anonRateLimit.burst, refusal, scope: 'anonymous', bucketOf: (request) => `anon:${request.ip}` }),
  });
  const address = { limiter: limiters.public, limit: config.publicRateLimit.burst, scope: 'address', bucketOf: (request: FastifyRequest) => `public:${request.ip}` } as const;
  const byAddress = throttleInOrder(refusal, [address]);
  const pixelThrottle = throttleInOrder(refusal, [address, { limiter: limiters.pixel, limit: pixelRateLimit.burst, scope: 'pixel', bucketOf: () => 'pixel' }]);
  const assetThrottle = throttleInOrder(refusal, [address, { limiter: limiters.asset, limit: config.assetRateLimit.burst, scope: 'asset', bucketOf: () => 'asset' }]);
  const addinThrottles = {
    byAddress,
    byOrg: throttle(limiters.addin, { limit: config.addinRateLimit.burst, refusal, scope: 'addin', bucketOf: (request) => `addin:${request.addinOrgId}` }),
  };

  const { guards } = deps;
  const billing = createBillingHooks({ orgs: deps.orgs, clock: deps.clock });
  // The org and staff routes: every route in this scope authenticates, then takes its token; each
  // route lists the rest of its steps (authorize, the billing gate on writes), and its schema the
  // validation.
  await app.register(async (api) => {
    api.addHook('onRequest', guards.authenticate);
    api.addHook('onRequest', byCaller);
    await api.register(orgRoutes({ guards, billing, orgs: deps.orgs }));
    await api.register(userRoutes({ guards, billing, users: deps.users, people: deps.people }));
    await api.register(mfaRoutes({ guards, billing, mfa: deps.mfa }));
    await api.register(templateRoutes({ guards, billing, templates: deps.templates, render: deps.render }));
    await api.register(apiKeyRoutes({ guards, billing, apiKeys: deps.apiKeys }));
    await api.register(auditRoutes({ guards, audit: deps.audit }));
    await api.register(imageRoutes({ guards, billing, images: deps.images }));
    await api.register(photoRoutes({ guards, billing, users: deps.users, images: deps.images }));
    await api.register(userImportRoutes({ guards, billing, userImport: deps.userImport }));
    await api.register(renderRoutes({ guards, billing, render: deps.render }));
    await api.register(opensRoutes({ guards, tracking: deps.tracking }));
    await api.register(outlookRoutes({ guards, billing, outlook: deps.outlook }));
    await api.register(microsoftRoutes({ guards, billing, microsoft: deps.microsoft }));
    await api.register(jobRoutes({ guards, jobs: deps.jobs }));
    await api.register(peopleRoutes({ guards, billing, people: deps.people }));
    await api.register(starterRoutes({ guards, baseUrl: deps.config.baseUrl }));
    await api.register(signatureRoutes({ guards, billing, render: deps.render, users: deps.users }));
    await api.register(deploymentRoutes({ guards, deployments: deps.deployments }));
    await api.register(googleRoutes({ guards, billing, google: deps.google }));
    // Org (plan status) and staff routes (payment events) of billing: the same two first steps.
    await api.register(billingRoutes({ guards, orgs: deps.orgs, billing: deps.billing, quota: deps.quota, clock: deps.clock }));
    await api.register(adminOrgRoutes({ guards, orgAdmin: deps.orgAdmin }));
    await api.register(adminStaffRoutes({ guards, staffAdmin: deps.staffAdmin }));
  });
  const ids = clientIds(config.stage);
  await app.register(
    webAppRoutes({
      apps: [
        { name: 'app', url: config.appUrl, clientId: ids.app },
        { name: 'admin', url: config.adminUrl, clientId: ids.admin },
      ],
      distDir: config.webDistDir,
      authUrl: config.authUrl,
      apiUrl: config.baseUrl,
      ...(config.billingUrl ? { billingUrl: config.billingUrl } : {}),
      limits: {
        renderBytes: config.renderLimitBytes,
        templateSourceChars: TEMPLATE_SOURCE_MAX,
        imageBytes: IMAGE_MAX_BYTES,
        imageSidePx: IMAGE_MAX_SIDE,
        passwordMinChars: MIN_PASSWORD_LENGTH,
      },
      logger: deps.logger,
    }),
  );
  // Images are fetched by mail clients, without credentials: outside the authenticated scope.
  await app.register(publicImageRoutes({ throttle: assetThrottle, images: deps.images }));
  await app.register(pictureRoutes({ throttle: assetThrottle }));
  await app.register(pixelRoutes({ throttle: pixelThrottle, tracking: deps.tracking }));
  await app.register(addinRoutes({ throttles: addinThrottles, outlook: deps.outlook, baseUrl: config.baseUrl, fetchTimeoutMs: config.addinFetchTimeoutMs }));
  await app.register(
    webhookRoutes({ billing: deps.billing, secret: config.webhookSecret, toleranceS: config.webhookToleranceS, clock: deps.clock, metrics }),
  );
  return app;
}
