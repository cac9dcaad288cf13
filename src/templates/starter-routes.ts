import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../http/guard.ts';
import { errorResponses, listQuery, orgParams, page } from '../http/schemas.ts';
import { listStarters } from './starters.ts';
import { designSchema } from './schemas.ts';
import { STARTER_DESIGNS } from '../designer/module.ts';

const starterSchema = z
  .object({
    starterId: z.string(),
    name: z.string(),
    description: z.string().describe('what the starter is good for, in a line'),
    design: designSchema,
    html: z.string().describe('the design compiled: Liquid, email-safe (tables, inline styles), with the open-tracking pixel'),
    text: z.string(),
    thumbnailUrl: z.string().describe('`{base_url}/v1/starters/{starterId}/thumbnail.png`: a picture of it (public)'),
  })
  .meta({
    id: 'StarterTemplate',
    examples: [
      {
        starterId: STARTER_DESIGNS[0]!.starterId,
        name: STARTER_DESIGNS[0]!.name,
        description: STARTER_DESIGNS[0]!.description,
        design: STARTER_DESIGNS[0]!.design,
        html: '<table role="presentation">…</table>',
        text: '{{ user.name }}',
        thumbnailUrl: 'http://localhost:3000/v1/starters/classic/thumbnail.png',
      },
    ],
  });

export function starterRoutes(deps: { guards: Guards; baseUrl: string }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/templates/starters',
      {
        onRequest: deps.guards.org('template.read'),
        schema: {
          operationId: 'listStarterTemplates',
          summary: 'Starter templates to begin from',
          description:
            'The gallery of designs to begin from (the first is what a new org gets as its default template), each compiled and with a thumbnail. Create a template from one with `POST /v1/orgs/{orgId}/templates` and its `design` (or its `html` and `text`).',
          tags: ['templates'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(starterSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        return listStarters(request.query, deps.baseUrl);
      },
    );
  };
}
