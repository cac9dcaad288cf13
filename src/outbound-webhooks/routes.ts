// Outbound webhook endpoints (admin): each route authorizes, takes the billing gate on writes,
// and calls the service (docs/webhooks.md).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type BillingHooks, type Guards } from '../http/guard.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import { errorResponses, listQuery, orgParams, page } from '../http/schemas.ts';
import type { OutboundWebhookService } from './service.ts';
import { secretAnswer } from '../http/secret-answer.ts';
import {
  createdEndpointSchema,
  deliveryParams,
  deliverySchema,
  endpointCreateSchema,
  endpointParams,
  endpointPatchSchema,
  endpointSchema,
  secretSchema,
} from './schemas.ts';

const TAGS = ['webhooks'];
const BASE = '/v1/orgs/:orgId/webhook-endpoints';

type RouteDeps = { guards: Guards; billing: BillingHooks; webhooks: OutboundWebhookService };

/** Two groups, each one plugin: the endpoints themselves, then their secret, test and deliveries. */
export function outboundWebhookRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(endpointRoutes(deps));
    await app.register(deliveryRoutes(deps));
  };
}

/** Create, list, read, change and delete an endpoint. */
function endpointRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  const { guards, billing, webhooks } = deps;
  const manage = guards.org('webhook.manage');
  const write = [manage, billing.writeGate];
  return async (app) => {
    app.post(
      BASE,
      {
        onRequest: write,
        schema: {
          operationId: 'createWebhookEndpoint',
          summary: 'Add an outbound webhook endpoint (admin)',
          description: 'The answer carries the signing `secret` once. The URL must be https and resolve to public addresses.',
          tags: TAGS,
          params: orgParams,
          body: endpointCreateSchema,
          response: { 201: createdEndpointSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const created = await webhooks.create(writeContext(request), request.body);
        secretAnswer(reply, 201);
        return created;
      },
    );

    app.get(
      BASE,
      {
        onRequest: manage,
        schema: {
          operationId: 'listWebhookEndpoints',
          summary: "The org's outbound webhook endpoints (admin)",
          tags: TAGS,
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(endpointSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => webhooks.list(request.params.orgId, request.query),
    );

    app.get(
      `${BASE}/:endpointId`,
      {
        onRequest: manage,
        config: { etag: true },
        schema: {
          operationId: 'getWebhookEndpoint',
          summary: 'One outbound webhook endpoint (admin)',
          tags: TAGS,
          params: endpointParams,
          response: { 200: endpointSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => withEtag(reply, await webhooks.get(request.params.orgId, request.params.endpointId)),
    );

    app.patch(
      `${BASE}/:endpointId`,
      {
        onRequest: write,
        config: { etag: true },
        schema: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Change, disable or enable an outbound webhook endpoint (admin)',
          description: 'Send `version`; a stale one is 409, a stale `If-Match` 412.',
          tags: TAGS,
          params: endpointParams,
          body: endpointPatchSchema,
          response: { 200: endpointSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        return withEtag(reply, await webhooks.update(writeContext(request), request.params.endpointId, versionCheck(request, version), patch));
      },
    );

    app.delete(
      `${BASE}/:endpointId`,
      {
        onRequest: write,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Delete an outbound webhook endpoint (admin); its deliveries stop',
          tags: TAGS,
          params: endpointParams,
          response: { 204: z.null().describe('deleted'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await webhooks.remove(writeContext(request), request.params.endpointId);
        return reply.code(204).send(null);
      },
    );
  };
}

/** An endpoint's secret rotation, test event, delivery log and redelivery. */
function deliveryRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  const { guards, billing, webhooks } = deps;
  const manage = guards.org('webhook.manage');
  const write = [manage, billing.writeGate];
  return async (app) => {
    app.post(
      `${BASE}/:endpointId/rotate-secret`,
      {
        onRequest: write,
        schema: {
          operationId: 'rotateWebhookSecret',
          summary: "Replace an endpoint's signing secret (admin)",
          description: 'The answer carries the new secret once. The replaced one keeps signing beside it for 24 hours, so receivers can switch without a gap.',
          tags: TAGS,
          params: endpointParams,
          response: { 200: secretSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const rotated = await webhooks.rotate(writeContext(request), request.params.endpointId);
        secretAnswer(reply);
        return rotated;
      },
    );

    app.post(
      `${BASE}/:endpointId/test`,
      {
        onRequest: write,
        schema: {
          operationId: 'sendWebhookTestEvent',
          summary: 'Send a `webhook.test` event to this endpoint (admin)',
          description: 'A disabled endpoint answers 409.',
          tags: TAGS,
          params: endpointParams,
          response: { 202: deliverySchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.sendTest(writeContext(request), request.params.endpointId);
      },
    );

    app.get(
      `${BASE}/:endpointId/deliveries`,
      {
        onRequest: manage,
        schema: {
          operationId: 'listWebhookDeliveries',
          summary: "An endpoint's deliveries, newest first, with their attempts (admin)",
          tags: TAGS,
          params: endpointParams,
          querystring: listQuery,
          response: { 200: page(deliverySchema), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => webhooks.deliveries(request.params.orgId, request.params.endpointId, request.query),
    );

    app.post(
      `${BASE}/:endpointId/deliveries/:deliveryId/retry`,
      {
        onRequest: write,
        schema: {
          operationId: 'retryWebhookDelivery',
          summary: 'Send a delivery again now, with the same `webhook-id` (admin)',
          description: 'A disabled endpoint answers 409, and so does a delivery being sent right now.',
          tags: TAGS,
          params: deliveryParams,
          response: { 202: deliverySchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.retry(writeContext(request), request.params.endpointId, request.params.deliveryId);
      },
    );
  };
}
