import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../auth/guard.ts';
import type { Db } from '../store/db.ts';
import { billingRepo } from '../store/repositories/billing.ts';
import { errorResponses, iso, isoOrNull, listQuery, nullableTimestamp, orgParams, page, timestamp } from '../http/schemas.ts';
import { badRequest, notFound } from '../errors.ts';
import type { OrgService } from '../orgs/service.ts';
import type { BillingService } from './service.ts';
import { planFacts, planStatus } from './gate.ts';

const planStatusSchema = z
  .object({
    subscriptionStatus: z.string(),
    writable: z.boolean().describe('false once a grace period has ended: writes answer 402'),
    blockedBy: z.enum(['seats', 'grace_expired']).nullable().describe('which cap is hit, if any'),
    seats: z.object({ limit: z.number().int(), used: z.number().int() }),
    gracePeriodEndsAt: nullableTimestamp,
  })
  .meta({ id: 'PlanStatus' });

const eventSchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(['applied', 'ignored', 'failed']),
  outcome: z.string().nullable(),
  error: z.string().nullable(),
  orgId: z.string().nullable(),
  createdAt: nullableTimestamp,
  receivedAt: timestamp,
  attempts: z.number().int(),
  correlationId: z.string().nullable(),
});

function decodeEventCursor(cursor: string | undefined): { receivedAt: Date; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const [at, ...id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const receivedAt = new Date(at ?? '');
  if (Number.isNaN(receivedAt.getTime()) || id.length === 0) {
    throw badRequest('query.cursor: is not a cursor this service issued', { field: 'query.cursor' });
  }
  return { receivedAt, id: id.join('|') };
}

export function billingRoutes(deps: { guards: Guards; orgs: OrgService; billing: BillingService; db: Db; clock: () => Date }): FastifyPluginAsyncZod {
  const { guards } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/plan-status',
      {
        onRequest: guards.org('billing.read'),
        schema: {
          summary: 'Which billing cap, if any, blocks writes (check it after a 402)',
          tags: ['billing'],
          params: orgParams,
          response: { 200: planStatusSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const org = await deps.orgs.require(request.params.orgId);
        return planStatus(planFacts(org), deps.clock());
      },
    );

    app.get(
      '/v1/admin/webhook-events',
      {
        onRequest: guards.staff(),
        schema: {
          summary: 'Payment-provider events received, newest first (staff)',
          tags: ['admin'],
          querystring: listQuery.extend({ status: z.enum(['applied', 'ignored', 'failed']).optional() }),
          response: { 200: page(eventSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, status } = request.query;
        const rows = await billingRepo.list(deps.db, { status }, limit + 1, decodeEventCursor(cursor));
        const more = rows.length > limit;
        const kept = rows.slice(0, limit);
        const last = kept.at(-1);
        return {
          nextCursor: more && last ? Buffer.from(`${last.received_at.toISOString()}|${last.id}`).toString('base64url') : null,
          items: kept.map((r) => ({
            id: r.id,
            type: r.type,
            status: r.status,
            outcome: r.outcome,
            error: r.error,
            orgId: r.org_id,
            createdAt: isoOrNull(r.created_at),
            receivedAt: iso(r.received_at),
            attempts: r.attempts,
            correlationId: r.correlation_id,
          })),
        };
      },
    );

    app.post(
      '/v1/admin/webhook-events/:eventId/replay',
      {
        onRequest: guards.staff(),
        schema: {
          summary: 'Apply a failed payment-provider event again (staff)',
          tags: ['admin'],
          params: z.object({ eventId: z.string().min(1).max(255) }),
          response: {
            200: z.object({ id: z.string(), result: z.enum(['applied', 'ignored', 'failed', 'not-failed']), detail: z.string() }),
            ...errorResponses('FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request) => {
        const [result] = await deps.billing.replay(request.params.eventId);
        if (!result) throw notFound('Event');
        return result;
      },
    );
  };
}
