import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, type Guards, type BillingHooks } from '../http/guard.ts';
import { requireSignatureReader } from './signature-access.ts';
import type { UserService } from '../users/module.ts';
import { errorResponses, uuid } from '../http/schemas.ts';
import type { RenderService } from './service.ts';
import { renderedSchema } from './schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

export function renderRoutes(deps: { guards: Guards; billing: BillingHooks; render: RenderService; users: UserService }): FastifyPluginAsyncZod {
  const { guards, billing, render, users } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/render/:userId',
      {
        onRequest: [guards.org('render'), billing.writeGate],
        schema: {
          operationId: 'renderSignature',
          summary: "Render a user's signature",
          description:
            "With the given template, else the one the org's rules give the user, else the org default. The user themselves, or an admin (as for …/users/{userId}/signature). Output over RENDER_LIMIT_BYTES (30 KB) is 413.",
          tags: ['render'],
          params: z.object({ orgId: uuid, userId: uuid }),
          body: z
            .strictObject({ templateId: uuid.optional() })
            .nullish()
            .meta({ examples: [{ templateId: EXAMPLE.templateId }] }),
          response: { 200: renderedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => {
        const { orgId, userId } = request.params;
        await requireSignatureReader(users, accessOf(request), orgId, userId);
        return render.render(orgId, userId, request.body?.templateId, request.id);
      },
    );
  };
}
