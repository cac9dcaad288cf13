// `GET /metrics`: the Prometheus text exposition (docs/operations.md, "Metrics"). Not throttled (a
// scraper must not be turned away when the service is busiest); with METRICS_TOKEN set it asks
// for `Authorization: Bearer <METRICS_TOKEN>`. Left out of the OpenAPI document: it is for the
// operator's Prometheus, not for API clients.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../kernel/errors.ts';
import type { Metrics } from './metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function metricsRoutes(deps: { metrics: Metrics; token: string | undefined }): FastifyPluginAsync {
  // Compared as digests, in constant time: equal lengths whatever the caller sends.
  const expected = deps.token === undefined ? undefined : digest(deps.token);
  return async (app) => {
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (expected) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
        if (!match || !timingSafeEqual(digest(match[1] as string), expected)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new AppError('UNAUTHORIZED', 'The metrics need `Authorization: Bearer <METRICS_TOKEN>`.');
        }
      }
      const { contentType, body } = await deps.metrics.scrape();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    });
  };
}
