import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards } from '../auth/guard.ts';
import type { BillingHooks } from '../billing/hooks.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import { errorResponses, listQuery, orgParams, page } from '../http/schemas.ts';
import { campaignCreateSchema, campaignParams, campaignPatchSchema, campaignSchema } from './schemas.ts';
import type { CampaignService } from './service.ts';

export function campaignRoutes(deps: { guards: Guards; billing: BillingHooks; campaigns: CampaignService }): FastifyPluginAsyncZod {
  const { guards, billing, campaigns } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/campaigns',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        schema: {
          operationId: 'createCampaign',
          summary: 'Schedule a campaign banner (admin)',
          description:
            'Its banner fills the `campaign` block (or `{{ campaign.banner }}`) of the signatures of its audience while it is active; where two overlap, the newest started wins. Each person sees one variant, the same for the whole campaign, chosen by weight.',
          tags: ['campaigns'],
          params: orgParams,
          body: campaignCreateSchema,
          response: { 201: campaignSchema, ...errorResponses('BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const made = await campaigns.create(writeContext(request), request.body);
        return withEtag(reply.code(201), made);
      },
    );

    app.get(
      '/v1/orgs/:orgId/campaigns',
      {
        onRequest: guards.org('template.read'),
        schema: {
          operationId: 'listCampaigns',
          summary: "The org's campaigns, oldest first",
          tags: ['campaigns'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(campaignSchema), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => campaigns.list(request.params.orgId, request.query),
    );

    app.get(
      '/v1/orgs/:orgId/campaigns/:campaignId',
      {
        onRequest: guards.org('template.read'),
        config: { etag: true },
        schema: {
          operationId: 'getCampaign',
          summary: 'One campaign',
          tags: ['campaigns'],
          params: campaignParams,
          response: { 200: campaignSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => withEtag(reply, await campaigns.get(request.params.orgId, request.params.campaignId)),
    );

    app.patch(
      '/v1/orgs/:orgId/campaigns/:campaignId',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'updateCampaign',
          summary: 'Change, reschedule or end a campaign (admin)',
          description: 'Send `version`; a stale one is 409, a stale `If-Match` 412. End one now with `{version, endsAt: <now>}`.',
          tags: ['campaigns'],
          params: campaignParams,
          body: campaignPatchSchema,
          response: { 200: campaignSchema, ...errorResponses('BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        return withEtag(reply, await campaigns.update(writeContext(request), request.params.campaignId, versionCheck(request, version), patch));
      },
    );

    app.delete(
      '/v1/orgs/:orgId/campaigns/:campaignId',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        schema: {
          operationId: 'deleteCampaign',
          summary: 'Delete a campaign (admin): its banner stops at once',
          tags: ['campaigns'],
          params: campaignParams,
          response: { 204: z.null().describe('deleted'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await campaigns.remove(writeContext(request), request.params.campaignId);
        return reply.code(204).send(null);
      },
    );
  };
}
