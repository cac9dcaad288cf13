// buildApp(deps): the whole HTTP surface, with nothing started. Tests import it; main.ts listens.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
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
import { interactionRoutes } from './auth/idp/interactions.ts';
import { handToProvider } from './auth/idp/hooks.ts';
import { mfaRoutes } from './users/mfa-routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { renderRoutes } from './render/routes.ts';
import { opensRoutes, pixelRoutes } from './tracking/routes.ts';
import { throttle, throttleByCaller } from './ratelimit/hook.ts';
import { createBillingHooks } from './billing/hooks.ts';
import { logCompleted } from './http/request-log.ts';

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: correlationIdOf,
    // One log line per request, written by the onResponse hook below, labelled with the correlation id.
    logController: new LogController({ requestIdLogLabel: 'correlationId', disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
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
  installErrorHandling(app, { bodyLimitBytes: config.bodyLimitBytes });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header(CORRELATION_HEADER, request.id);
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Signature Service API',
        version: '1.0.0',
        description:
          'Multi-tenant API for managing and rendering email signatures. Every error answers `{error: {code, message, details?, correlationId}}`.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An ID token of the identity provider, or an API key (`svc_…`).' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes(deps.healthChecks));

  // The identity provider answers under AUTH_URL's path, except our sign-in pages, which are more
  // specific Fastify routes.
  const authPath = new URL(config.authUrl).pathname.replace(/\/$/, '');
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: `${authPath}/*`,
    schema: { hide: true },
    onRequest: handToProvider(deps.provider, config.authUrl),
    handler: async () => undefined,
  });
  await app.register(
    interactionRoutes({
      provider: deps.provider,
      signIn: deps.signIn,
      clock: deps.clock,
      stage: config.stage,
      authUrl: config.authUrl,
      authPath,
      attemptsPerMinute: config.signInAttemptsPerMinute,
    }),
  );
  // Throttling (spec section 8; DECISIONS' order of a request's steps). Health, the identity
  // provider's pages and the webhook take no token (sign-in has its own limits; the webhook is signed).
  const { rateLimit, pixelRateLimit, anonRateLimit, retryAfterS } = config;
  const byCaller = throttleByCaller({
    authenticated: throttle(deps.limiters.stage, { limit: rateLimit.burst, retryAfterS, bucketOf: () => 'stage' }),
    // Keyed by the socket's address (request.ip, until TRUST_PROXY names a proxy).
    anonymous: throttle(deps.limiters.anon, { limit: anonRateLimit.burst, retryAfterS, bucketOf: (request) => `anon:${request.ip}` }),
  });
  const pixelThrottle = throttle(deps.limiters.pixel, { limit: pixelRateLimit.burst, retryAfterS, bucketOf: () => 'pixel' });

  const { guards } = deps;
  const billing = createBillingHooks({ orgs: deps.orgs, clock: deps.clock });
  // The org and staff routes: every route in this scope authenticates, then takes its token; each
  // route lists the rest of its steps (authorize, the billing gate on writes), and its schema the
  // validation.
  await app.register(async (api) => {
    api.addHook('onRequest', guards.authenticate);
    api.addHook('onRequest', byCaller);
    await api.register(orgRoutes({ guards, billing, orgs: deps.orgs }));
    await api.register(userRoutes({ guards, billing, users: deps.users }));
    await api.register(mfaRoutes({ guards, billing, mfa: deps.mfa }));
    await api.register(templateRoutes({ guards, billing, templates: deps.templates, render: deps.render }));
    await api.register(apiKeyRoutes({ guards, billing, apiKeys: deps.apiKeys }));
    await api.register(auditRoutes({ guards, audit: deps.audit }));
    await api.register(renderRoutes({ guards, billing, render: deps.render }));
    await api.register(opensRoutes({ guards, tracking: deps.tracking }));
    // Org (plan status) and staff routes (payment events) of billing: the same two first steps.
    await api.register(billingRoutes({ guards, orgs: deps.orgs, billing: deps.billing, clock: deps.clock }));
  });
  await app.register(pixelRoutes({ throttle: pixelThrottle, tracking: deps.tracking }));
  await app.register(
    webhookRoutes({ billing: deps.billing, secret: config.webhookSecret, toleranceS: config.webhookToleranceS, clock: deps.clock }),
  );
  return app;
}
