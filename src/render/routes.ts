import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards, BillingHooks } from '../http/guard.ts';
import { errorResponses, uuid } from '../http/schemas.ts';
import type { RenderService } from './service.ts';
import { renderedSchema } from './schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

export function renderRoutes(deps: { guards: Guards; billing: BillingHooks; render: RenderService }): FastifyPluginAsyncZod {
  const { guards, billing, render } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/render/:userId',
      {
        onRequest: [guards.org('render'), billing.writeGate],
        schema: {
          operationId: 'renderSignature',
          summary: "Render a user's signature",
          description: 'With the given template, or the org default. Output over RENDER_LIMIT_BYTES (30 KB) is 413.',
          tags: ['render'],
          params: z.object({ orgId: uuid, userId: uuid }),
          body: z
            .strictObject({ templateId: uuid.optional() })
            .nullish()
            .meta({ examples: [{ templateId: EXAMPLE.templateId }] }),
          response: { 200: renderedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => render.render(request.params.orgId, request.params.userId, request.body?.templateId, request.id),
    );
  };
}
