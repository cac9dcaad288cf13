import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../kernel/errors.ts';
import { errorEnvelope } from '../http/schemas.ts';
import { sendError } from '../http/error-handler.ts';
import { failureClass, runCheck, type HealthCheck } from './checks.ts';

export type { HealthCheck };

const CHECK_TIMEOUT_MS = 1500;

// `error` is the class of failure (unreachable, timeout), never the driver's message.
const checkResult = z.object({ status: z.enum(['ok', 'failing']), ms: z.number(), error: z.string().optional() });

/** `GET /health`: no auth, not rate limited; 503 SERVICE_UNAVAILABLE names the failing checks. */
export function healthRoutes(checks: Record<string, HealthCheck>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          operationId: 'getHealth',
          summary: 'Health of the service and its dependencies',
          tags: ['operations'],
          response: {
            200: z
              .object({ status: z.literal('ok'), checks: z.record(z.string(), checkResult) })
              .meta({ examples: [{ status: 'ok', checks: { database: { status: 'ok', ms: 2 }, redis: { status: 'ok', ms: 1 } } }] }),
            503: errorEnvelope,
          },
        },
      },
      async (request, reply) => {
        const causes: Record<string, string> = {};
        const entries = await Promise.all(
          Object.entries(checks).map(async ([name, check]) => {
            const started = performance.now();
            try {
              await runCheck(check, CHECK_TIMEOUT_MS);
              return [name, { status: 'ok' as const, ms: Math.round(performance.now() - started) }] as const;
            } catch (err) {
              causes[name] = rootMessage(err);
              return [name, { status: 'failing' as const, ms: Math.round(performance.now() - started), error: failureClass(err) }] as const;
            }
          }),
        );
        const results = Object.fromEntries(entries);
        const failing = entries.filter(([, r]) => r.status === 'failing').map(([n]) => n);
        if (failing.length > 0) {
          // The operator's log gets the driver's message; the public answer only its class.
          request.log.warn({ checks: results, causes }, 'health check failing');
          const summary = entries.flatMap(([n, r]) => (r.status === 'failing' ? [`${n} (${r.error})`] : []));
          return sendError(request, reply, new AppError('SERVICE_UNAVAILABLE', `Failing: ${summary.join(', ')}.`, { details: { failing, checks: results } }));
        }
        return { status: 'ok' as const, checks: results };
      },
    );
  };
}

function rootMessage(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause !== undefined) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}
