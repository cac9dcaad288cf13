import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, type Guards, type BillingHooks } from '../http/guard.ts';
import { requireSignatureReader } from './signature-access.ts';
import { errorResponses, uuid } from '../http/schemas.ts';
import type { RenderService } from './service.ts';
import type { UserService } from '../users/module.ts';

const signatureSchema = z
  .object({
    html: z.string(),
    text: z.string(),
    bytes: z.number().int().describe('UTF-8 bytes of the HTML'),
    warnings: z.array(z.string()),
    templateId: z.string().describe("the template used: the first matching rule's (its reply template for `compose=reply`), else the org's default"),
    ruleId: z.string().nullable().describe('the assignment rule that chose the template; null when none matched (the default)'),
  })
  .meta({
    id: 'Signature',
    examples: [
      {
        html: '<table><tr><td><strong>Ada Lovelace</strong></td></tr></table>',
        text: 'Ada Lovelace',
        bytes: 61,
        warnings: [],
        templateId: '6f1c2b9e-3d4a-4c5b-8e7f-9a0b1c2d3e4f',
        ruleId: null,
      },
    ],
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
          description:
            "With the template the org's rules give this user (GET/PUT …/rules: the first match, its reply template for `compose=reply`), else the org's default. The user themselves, or an admin.",
          tags: ['render'],
          params: z.object({ orgId: uuid, userId: uuid }),
          querystring: z.object({
            compose: z.enum(['new', 'reply']).default('new').describe('a new message, or a reply (and forward)'),
            preview: z
              .enum(['true', 'false'])
              .default('false')
              .describe(
                "`true`: a look at it (the dashboard's previews): the same answer, but not a signature served, so no campaign impression and no `signature.rendered` event",
              ),
          }),
          response: { 200: signatureSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => {
        const { orgId, userId } = request.params;
        await requireSignatureReader(users, accessOf(request), orgId, userId);
        const { html, text, bytes, warnings, templateId, ruleId } =
          request.query.preview === 'true'
            ? await render.look(orgId, userId, request.query.compose)
            : await render.render(orgId, userId, undefined, request.id, request.query.compose);
        return { html, text, bytes, warnings, templateId: templateId ?? '', ruleId: ruleId ?? null };
      },
    );
  };
}
