import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../http/guard.ts';
import { errorResponses, listQuery, orgParams, page, text, timestamp } from '../http/schemas.ts';
import type { AuditService } from './service.ts';
import { EXAMPLE } from '../http/examples.ts';

const auditEntrySchema = z
  .object({
    at: timestamp,
    actor: z.object({ type: z.enum(['user', 'apiKey', 'staff', 'paymentProvider', 'system']), id: z.string() }),
    action: z.string(),
    targetId: z.string().nullable(),
    correlationId: z.string().nullable(),
    changes: z.array(z.string()).describe('names of the changed fields, never their values'),
  })
  .meta({
    id: 'AuditEntry',
    examples: [
      {
        at: EXAMPLE.updatedAt,
        actor: { type: 'apiKey', id: EXAMPLE.keyId },
        action: 'user.update',
        targetId: EXAMPLE.userId,
        correlationId: EXAMPLE.correlationId,
        changes: ['title'],
      },
    ],
  });

// An instant PostgreSQL's timestamptz can hold (years 1 to 9999), as ISO-8601 with an offset, or a date.
const auditInstant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, { message: 'must be a date between years 1 and 9999' });

export function auditRoutes(deps: { guards: Guards; audit: AuditService }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/audit',
      {
        onRequest: deps.guards.org('audit.read'),
        schema: {
          operationId: 'listAuditEntries',
          summary: "The org's audit trail, newest first (admin)",
          tags: ['audit'],
          params: orgParams,
          querystring: listQuery
            .extend({
              action: text().max(100).optional().describe('only this action, e.g. `user.create`'),
              targetId: text().max(100).optional().describe('only entries about this object'),
              actorId: text().max(100).optional().describe('only entries by this actor (a user, API key or staff id)'),
              from: auditInstant.optional().describe('entries at or after this instant (ISO-8601; a date alone is its midnight UTC)'),
              to: auditInstant.optional().describe('entries before this instant (exclusive)'),
            })
            .refine((q) => !q.from || !q.to || q.from < q.to, { message: 'must be after `from`', path: ['to'] }),
          response: { 200: page(auditEntrySchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, ...filter } = request.query;
        return deps.audit.list(request.params.orgId, filter, { limit, cursor });
      },
    );
  };
}
