import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import Negotiator from 'negotiator';
import { z } from 'zod';
import { writeContext, type BillingHooks, type Guards } from '../http/guard.ts';

import { versionCheck, withEtag } from '../http/concurrency.ts';
import { errorResponses, inputDay, listQuery, orgParams, page } from '../http/schemas.ts';
import { campaignCreateSchema, campaignParams, campaignPatchSchema, campaignSchema, campaignStatsSchema } from './schemas.ts';
import { statsCsv } from './stats.ts';
import type { CampaignService } from './service.ts';

// What the stats route answers, JSON first: a client that accepts both alike (any type) gets JSON.
const ANSWERS = ['application/json', 'text/csv'];

const CREATE_DESCRIPTION =
  'Its banner fills the `campaign` block (or `{{ campaign.banner }}`) of the signatures of its audience while it is active; where two overlap, the newest started wins. Each person sees one variant, the same for the whole campaign, chosen by weight.';

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
          description: CREATE_DESCRIPTION,
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
        onRequest: guards.org('campaign.read'),
        schema: {
          operationId: 'listCampaigns',
          summary: "The org's campaigns, oldest first (admin)",
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
        onRequest: guards.org('campaign.read'),
        config: { etag: true },
        schema: {
          operationId: 'getCampaign',
          summary: 'One campaign (admin)',
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

/** A campaign's stats, as JSON or CSV. */
export function campaignStatsRoutes(deps: { guards: Guards; campaigns: CampaignService }): FastifyPluginAsyncZod {
  const { guards, campaigns } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/campaigns/:campaignId/stats',
      {
        onRequest: guards.org('campaign.read'),
        schema: {
          operationId: 'getCampaignStats',
          summary: "A campaign's impressions and clicks, per variant and per day (admin)",
          description:
            "Impressions are signatures served with the banner (render, signature, add-in, pushes; not previews). `ctr` is humanClicks / impressions, null at 0 impressions. With `Accept: text/csv`: one row per variant and day with the campaign's name and the variant's alt (cells starting with = + - @ prefixed by ').",
          tags: ['campaigns'],
          params: campaignParams,
          querystring: z.object({
            from: inputDay.optional().describe("first UTC day, YYYY-MM-DD (default: the campaign's start)"),
            to: inputDay.optional().describe('last UTC day, inclusive (default: today, or the first day of a campaign not started yet)'),
          }),
          response: {
            200: {
              description: 'The stats (JSON), or with `Accept: text/csv` the same as CSV',
              content: {
                'application/json': { schema: campaignStatsSchema },
                'text/csv': {
                  schema: z
                    .string()
                    .meta({ contentMediaType: 'text/csv', examples: ['campaign,date,variant,alt,impressions,clicks,humanClicks,suspectedBotClicks,ctr\r\n'] }),
                },
              },
            },
            ...errorResponses('BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        const { campaign, stats, rows } = await campaigns.stats(request.params.orgId, request.params.campaignId, request.query);
        // CSV when the client prefers it to JSON by HTTP's rules (q-values, wildcards; q=0 refuses).
        if (new Negotiator(request).mediaType(ANSWERS) === 'text/csv') {
          const name = campaign.name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'campaign';
          reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}-stats.csv"`);
          return reply.send(statsCsv(campaign, rows));
        }
        return stats;
      },
    );
  };
}
