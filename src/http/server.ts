// The Fastify instance every route is registered on, with what applies to all of them: the zod
// compilers, the request log line, the metrics of every answer, the error envelope, the correlation
// id, CORS for the web apps' origins, and the OpenAPI document. No route of a capability: app.ts
// registers the modules' routes on it.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { openApiOptions } from './openapi.ts';
import { serializerCompiler } from './serializer.ts';
import { CORRELATION_HEADER, correlationIdOf } from './correlation.ts';
import { frameworkErrors, installErrorHandling } from './error-handler.ts';
import { logCompleted } from './request-log.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import { useBoundedJsonParser } from './json-body.ts';

export interface HttpServerOptions {
  config: Config;
  logger: Logger;
  /** Records an answer (metrics/metrics.ts's `httpRequest`). */
  metrics: { httpRequest(method: string, route: string, status: number, seconds: number): void };
  /** The web apps' origins other than the API's, which may call it from the browser (none: no CORS header at all). */
  corsOrigins: string[];
  /**
   * A catch-all route whose fixed endpoints each get their own series in the metrics (the identity
   * provider's: the token endpoint's latency is worth seeing apart); any other path under it is the route.
   */
  catchAll: { prefix: string; endpoints: ReadonlySet<string> };
}

export async function createHttpServer(opts: HttpServerOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: correlationIdOf,
    // One log line per request, written by the onResponse hook below, labelled with the correlation id.
    logController: new LogController({ requestIdLogLabel: 'correlationId', disableRequestLogging: true }),
    // request.log is made on its first line written (./lazy-logger.ts): most requests write none below `info`.
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.bodyLimitBytes,
    // request.ip (throttle keys, sign-in limits) is the socket's address unless it is a proxy
    // TRUST_PROXY names; then X-Forwarded-For's nearest untrusted hop. The identity provider's
    // URLs never follow forwarded headers (idp/hooks.ts pins them to AUTH_URL).
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
  // Every JSON body, before any route: nested past what the API needs is a 400 (./json-body.ts).
  useBoundedJsonParser(app);

  if (opts.logger.isLevelEnabled('info')) {
    app.addHook('onResponse', (request, reply, done) => {
      logCompleted(request, reply);
      done();
    });
  }
  // Every answer counts in the metrics, by the route's pattern (an unmatched URL is `unmatched`:
  // raw URLs would make a series per id).
  const routeOf = routeLabeller(opts.catchAll);
  app.addHook('onResponse', (request, reply, done) => {
    opts.metrics.httpRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  installErrorHandling(app, { bodyLimitBytes: config.bodyLimitBytes });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header(CORRELATION_HEADER, request.id);
    done();
  });

  // The web apps on another origin than the API's call it from the browser: exactly those origins
  // may (docs/web-apps.md, "What the server adds"); with both apps on BASE_URL's origin no CORS header is sent at all.
  if (opts.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: opts.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // Date: the dashboard ends a campaign "now" by the server's clock (web/app/campaigns/api.ts).
      exposedHeaders: ['Retry-After', CORRELATION_HEADER, 'ETag', 'Date'],
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
  return app;
}

/** The metrics' route label of a request: its route's pattern, or a catch-all's fixed endpoint. */
function routeLabeller(catchAll: HttpServerOptions['catchAll']): (request: FastifyRequest) => string {
  const catchAllRoute = `${catchAll.prefix}/*`;
  return (request) => {
    const route = request.routeOptions.url;
    if (route !== catchAllRoute) return route ?? 'unmatched';
    const url = (request.raw as { originalUrl?: string }).originalUrl ?? request.url;
    const path = url.split('?')[0]?.slice(catchAll.prefix.length) ?? '';
    return catchAll.endpoints.has(path) ? catchAll.prefix + path : route;
  };
}
