import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { withTimeout } from '../store/db.ts';
import { AppError } from '../errors.ts';
import { errorEnvelope } from '../http/schemas.ts';
import { sendError } from '../http/error-handler.ts';

export type HealthCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 1500;

const checkResult = z.object({ status: z.enum(['ok', 'failing']), ms: z.number(), error: z.string().optional() });

/** `GET /health`: no auth, not rate limited; 503 SERVICE_UNAVAILABLE names the failing checks. */
export function healthRoutes(checks: Record<string, HealthCheck>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          summary: 'Health of the service and its dependencies',
          tags: ['operations'],
          response: { 200: z.object({ status: z.literal('ok'), checks: z.record(z.string(), checkResult) }), 503: errorEnvelope },
        },
      },
      async (request, reply) => {
        const entries = await Promise.all(
          Object.entries(checks).map(async ([name, check]) => {
            const started = performance.now();
            try {
              await withTimeout(check(), CHECK_TIMEOUT_MS);
              return [name, { status: 'ok' as const, ms: Math.round(performance.now() - started) }] as const;
            } catch (err) {
              const error = err instanceof Error ? err.message : String(err);
              return [name, { status: 'failing' as const, ms: Math.round(performance.now() - started), error }] as const;
            }
          }),
        );
        const results = Object.fromEntries(entries);
        const failing = entries.filter(([, r]) => r.status === 'failing').map(([n]) => n);
        if (failing.length > 0) {
          request.log.warn({ checks: results }, 'health check failing');
          return sendError(
            request,
            reply,
            new AppError('SERVICE_UNAVAILABLE', `Failing: ${failing.join(', ')}.`, { details: { failing, checks: results } }),
          );
        }
        return { status: 'ok' as const, checks: results };
      },
    );
  };
}
