import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../auth/guard.ts';
import { errorResponses, listQuery, orgParams, page } from '../http/schemas.ts';
import { listStarters } from './starters.ts';

const starterSchema = z
  .object({
    starterId: z.string(),
    name: z.string(),
    html: z.string().describe('Liquid, Outlook-safe (tables, inline styles), with the open-tracking pixel'),
    text: z.string(),
  })
  .meta({
    id: 'StarterTemplate',
    examples: [{ starterId: 'compact', name: 'Compact (one line)', html: '<table>…</table>', text: '{{ user.name }} | {{ org.name }}' }],
  });

export function starterRoutes(deps: { guards: Guards }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/templates/starters',
      {
        onRequest: deps.guards.org('template.read'),
        schema: {
          operationId: 'listStarterTemplates',
          summary: 'Starter templates to begin from',
          description:
            'A small gallery of layouts (the first is what a new org gets as its default template). Create a template from one with `POST /v1/orgs/{orgId}/templates` and its `html` and `text`.',
          tags: ['templates'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(starterSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        return listStarters(request.query);
      },
    );
  };
}
