import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../auth/guard.ts';
import { errorResponses, iso, listQuery, orgParams, page, text, timestamp } from '../http/schemas.ts';
import type { AuditRow } from '../store/schema.ts';
import type { AuditService } from './service.ts';

const auditEntrySchema = z
  .object({
    at: timestamp,
    actor: z.object({ type: z.enum(['user', 'apiKey', 'staff', 'paymentProvider', 'system']), id: z.string() }),
    action: z.string(),
    targetId: z.string().nullable(),
    correlationId: z.string().nullable(),
    changes: z.array(z.string()).describe('names of the changed fields, never their values'),
  })
  .meta({ id: 'AuditEntry' });

const presentEntry = (r: AuditRow) => ({
  at: iso(r.at),
  actor: { type: r.actor_type, id: r.actor_id },
  action: r.action,
  targetId: r.target_id,
  correlationId: r.correlation_id,
  changes: r.changes,
});

export function auditRoutes(deps: { guards: Guards; audit: AuditService }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/audit',
      {
        onRequest: deps.guards.org('audit.read'),
        schema: {
          summary: "The org's audit trail, newest first (admin)",
          tags: ['audit'],
          params: orgParams,
          querystring: listQuery.extend({
            action: text().max(100).optional().describe('only this action, e.g. `user.create`'),
            targetId: text().max(100).optional().describe('only entries about this object'),
          }),
          response: { 200: page(auditEntrySchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, action, targetId } = request.query;
        const result = await deps.audit.list(request.params.orgId, { action, targetId }, { limit, cursor });
        return { items: result.items.map(presentEntry), nextCursor: result.nextCursor };
      },
    );
  };
}
