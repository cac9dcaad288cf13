import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../auth/guard.ts';
import { errorResponses, iso, isoOrNull, listQuery, nullableTimestamp, orgParams, page, text, timestamp, uuid } from '../http/schemas.ts';
import { notFound } from '../errors.ts';
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

/** Ids and types as the database can look them up (no NUL). */
const storableText = text().min(1).max(255);

const eventStatus = z.enum(['applied', 'ignored', 'failed', 'pending']);

const eventSchema = z.object({
  id: z.string(),
  type: z.string(),
  status: eventStatus.describe('pending: no org is linked to its customer yet; applied when one is'),
  outcome: z.string().nullable(),
  error: z.string().nullable(),
  orgId: z.string().nullable(),
  customerId: z.string().nullable(),
  createdAt: nullableTimestamp,
  receivedAt: timestamp,
  attempts: z.number().int(),
  correlationId: z.string().nullable(),
});

export function billingRoutes(deps: { guards: Guards; orgs: OrgService; billing: BillingService; clock: () => Date }): FastifyPluginAsyncZod {
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
          querystring: listQuery.extend({
            status: eventStatus.optional(),
            orgId: uuid.optional(),
            type: storableText.optional(),
          }),
          response: { 200: page(eventSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, status, orgId, type } = request.query;
        const found = await deps.billing.listEvents({ status, orgId: orgId?.toLowerCase(), type }, { limit, cursor });
        return {
          nextCursor: found.nextCursor,
          items: found.items.map((r) => ({
            id: r.id,
            type: r.type,
            status: r.status,
            outcome: r.outcome,
            error: r.error,
            orgId: r.org_id,
            customerId: r.customer_id,
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
          summary: 'Apply a failed or pending payment-provider event again (staff)',
          tags: ['admin'],
          params: z.object({ eventId: storableText }),
          response: {
            200: z.object({ id: z.string(), result: z.enum(['applied', 'ignored', 'failed', 'pending', 'not-failed']), detail: z.string() }),
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
