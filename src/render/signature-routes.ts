import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, type Guards, type BillingHooks } from '../http/guard.ts';
import { enforce, readSignature } from '../kernel/policy.ts';
import { errorResponses, uuid } from '../http/schemas.ts';
import type { RenderService } from './service.ts';
import type { UserService } from '../users/module.ts';

const signatureSchema = z
  .object({
    html: z.string(),
    text: z.string(),
    bytes: z.number().int().describe('UTF-8 bytes of the HTML'),
    warnings: z.array(z.string()),
  })
  .meta({
    id: 'Signature',
    examples: [{ html: '<table><tr><td><strong>Ada Lovelace</strong></td></tr></table>', text: 'Ada Lovelace', bytes: 61, warnings: [] }],
  });

export function signatureRoutes(deps: { guards: Guards; billing: BillingHooks; render: RenderService; users: UserService }): FastifyPluginAsyncZod {
  const { guards, billing, render, users } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/users/:userId/signature',
      {
        // Rendering is gated like a write: every path that renders answers 402 past grace
        // (docs/guide.md, "Billing states").
        onRequest: [guards.org('render'), billing.writeGate],
        schema: {
          operationId: 'getUserSignature',
          summary: "A user's rendered signature, to copy into a mail client",
          description: "With the org's default template. The user themselves, or an admin.",
          tags: ['render'],
          params: z.object({ orgId: uuid, userId: uuid }),
          response: { 200: signatureSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => {
        // Members may list the org's users, so an unknown id answers 404 before the role check.
        await users.get(request.params.orgId, request.params.userId);
        enforce(readSignature(accessOf(request), request.params.userId));
        const { html, text, bytes, warnings } = await render.render(request.params.orgId, request.params.userId);
        return { html, text, bytes, warnings };
      },
    );
  };
}
