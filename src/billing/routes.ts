import type { QuotaCounter } from '../quota/counter.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { staffContext, type Guards } from '../http/guard.ts';
import { errorResponses, listQuery, nullableTimestamp, orgParams, page, text, timestamp, uuid, type ZodApp } from '../http/schemas.ts';
import { notFound } from '../kernel/errors.ts';
import { EVENT_FAILURE_CODES } from './failure.ts';
import type { OrgService } from '../orgs/module.ts';
import type { BillingService } from './service.ts';
import { planFacts, planStatus } from './gate.ts';
import { EXAMPLE } from '../http/examples.ts';

const planStatusSchema = z
  .object({
    subscriptionStatus: z.string(),
    writable: z.boolean().describe('false once a grace period has ended: writes answer 402'),
    blockedBy: z.enum(['seats', 'grace_expired']).nullable().describe('which cap is hit, if any'),
    seats: z.object({ limit: z.number().int(), used: z.number().int() }),
    gracePeriodEndsAt: nullableTimestamp,
    quota: z
      .object({
        limit: z.number().int().nullable().describe('API-key requests allowed this calendar month (UTC); null: no quota'),
        used: z.number().int().describe('API-key requests counted this month, by every instance'),
        resetsAt: z.iso.datetime().describe('when the count starts again: the first instant of next month, UTC'),
      })
      .describe('the monthly quota of API-key requests: past `limit`, 429 with `details.scope` `quota`'),
  })
  .meta({
    id: 'PlanStatus',
    examples: [
      {
        subscriptionStatus: 'past_due',
        writable: true,
        blockedBy: null,
        seats: { limit: 50, used: 12 },
        gracePeriodEndsAt: '2026-01-19T14:05:00.000Z',
        quota: { limit: 100000, used: 31250, resetsAt: '2026-02-01T00:00:00.000Z' },
      },
    ],
  });

/** Ids and types as the database can look them up (no NUL). */
const storableText = text().min(1).max(255);

const eventStatus = z.enum(['applied', 'ignored', 'failed', 'pending']);

const replayResult = z
  .object({
    id: z.string(),
    result: z.enum(['applied', 'ignored', 'failed', 'pending', 'not-failed']),
    detail: z.string().describe('the outcome, or the error of a failed replay'),
    errorCode: z.enum(EVENT_FAILURE_CODES).optional().describe('a failed replay: what failed, stable'),
  })
  .meta({ examples: [{ id: 'evt_1QxYz2AbCdEfGh', result: 'applied', detail: 'changed subscriptionStatus, gracePeriodEndsAt' }] });

const eventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    status: eventStatus.describe('pending: no org is linked to its customer yet; applied when one is'),
    outcome: z.string().nullable(),
    error: z.string().nullable().describe("why it failed, for staff (the database's own error is in the service's log)"),
    errorCode: z
      .enum(EVENT_FAILURE_CODES)
      .nullable()
      .describe(
        'what failed, stable: EVENT_DATA (a value the database cannot store), EVENT_UNREADABLE, NO_ORG, REPLAYED_CONCURRENTLY, CUSTOMER_TAKEN (another org has the customer of the event), CONFLICT (another value that must be unique), DATABASE_REFUSED, DATABASE_UNAVAILABLE, INTERNAL',
      ),
    orgId: z.string().nullable(),
    customerId: z.string().nullable(),
    createdAt: nullableTimestamp,
    receivedAt: timestamp,
    attempts: z.number().int(),
    correlationId: z.string().nullable(),
  })
  .meta({
    examples: [
      {
        id: 'evt_1QxYz2AbCdEfGh',
        type: 'invoice.payment_failed',
        status: 'failed',
        outcome: null,
        error: 'no org for this event (metadata.orgId absent, no customer to wait for); replay it once the org exists',
        errorCode: 'NO_ORG',
        orgId: null,
        customerId: 'cus_R4nd0mCustomer',
        createdAt: EXAMPLE.createdAt,
        receivedAt: EXAMPLE.createdAt,
        attempts: 1,
        correlationId: EXAMPLE.correlationId,
      },
    ],
  });

const eventExample = (z.globalRegistry.get(eventSchema)?.examples as Record<string, unknown>[] | undefined)?.[0] ?? {};
const eventDetailSchema = eventSchema.extend({ payload: z.string().describe('the body exactly as the provider signed it (UTF-8)') }).meta({
  examples: [
    {
      ...eventExample,
      payload: '{"id":"evt_1QxYz2AbCdEfGh","object":"event","type":"invoice.payment_failed","data":{"object":{"customer":"cus_R4nd0mCustomer"}}}',
    },
  ],
});

export function billingRoutes(deps: {
  guards: Guards;
  orgs: OrgService;
  billing: BillingService;
  quota: QuotaCounter;
  clock: () => Date;
}): FastifyPluginAsyncZod {
  const { guards } = deps;
  /** An org's plan status. */
  const planStatusRoute = (app: ZodApp): void => {
    app.get(
      '/v1/orgs/:orgId/plan-status',
      {
        onRequest: guards.org('billing.read'),
        schema: {
          operationId: 'getPlanStatus',
          summary: 'Which billing cap, if any, blocks writes (check it after a 402)',
          tags: ['billing'],
          params: orgParams,
          response: { 200: planStatusSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const [org, quota] = await Promise.all([deps.orgs.require(request.params.orgId), deps.quota.use(request.params.orgId)]);
        return { ...planStatus(planFacts(org), deps.clock()), quota: { ...quota, resetsAt: quota.resetsAt.toISOString() } };
      },
    );
  };

  /** The payment provider's events, for staff: list, read, replay. */
  const eventRoutes = (app: ZodApp): void => {
    app.get(
      '/v1/admin/webhook-events',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'listWebhookEvents',
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
        return deps.billing.listEvents({ status, orgId: orgId?.toLowerCase(), type }, { limit, cursor });
      },
    );

    app.get(
      '/v1/admin/webhook-events/:eventId',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'getWebhookEvent',
          summary: 'One payment-provider event with its stored payload (staff)',
          tags: ['admin'],
          params: z.object({ eventId: storableText }),
          response: {
            200: eventDetailSchema,
            ...errorResponses('FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request) => deps.billing.event(request.params.eventId),
    );

    app.post(
      '/v1/admin/webhook-events/replay',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'replayFailedWebhookEvents',
          summary: 'Apply every failed payment-provider event again, oldest first (staff)',
          description: 'Answers the result of each event; an event that fails again stays failed, with its new error.',
          tags: ['admin'],
          response: {
            200: z.object({ results: z.array(replayResult) }).meta({
              examples: [{ results: [{ id: 'evt_1QxYz2AbCdEfGh', result: 'applied', detail: 'changed subscriptionStatus, gracePeriodEndsAt' }] }],
            }),
            ...errorResponses('FORBIDDEN'),
          },
        },
      },
      async (request) => ({ results: await deps.billing.replay(undefined, staffContext(request)) }),
    );

    app.post(
      '/v1/admin/webhook-events/:eventId/replay',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'replayWebhookEvent',
          summary: 'Apply a failed or pending payment-provider event again (staff)',
          tags: ['admin'],
          params: z.object({ eventId: storableText }),
          response: { 200: replayResult, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const [result] = await deps.billing.replay(request.params.eventId, staffContext(request));
        if (!result) throw notFound('Event');
        return result;
      },
    );
  };

  return async (app) => {
    planStatusRoute(app);
    eventRoutes(app);
  };
}
