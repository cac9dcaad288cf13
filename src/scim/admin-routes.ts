// The admin's side of SCIM under /v1 (docs/scim.md): the org's token (create or replace, read the
// state, revoke) and the groups SCIM keeps, listed for the dashboard and the rule editor.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type BillingHooks, type Guards } from '../http/guard.ts';
import { errorResponses, listQuery, orgParams, page, timestamp, uuid } from '../http/schemas.ts';
import type { ScimService } from './service.ts';
import { secretAnswer } from '../http/secret-answer.ts';

const scimStatusSchema = z
  .object({
    enabled: z.boolean().describe('a token exists'),
    baseUrl: z.string().describe('the SCIM base URL to give the identity provider'),
    createdAt: timestamp.nullable().describe('when the current token was made'),
    lastRequestAt: timestamp.nullable().describe('the last SCIM request with the current token'),
  })
  .meta({
    id: 'ScimIntegration',
    examples: [{ enabled: true, baseUrl: 'https://api.example.com/scim/v2', createdAt: '2026-01-01T00:00:00.000Z', lastRequestAt: '2026-01-02T09:30:00.000Z' }],
  });

const scimTokenSchema = z
  .object({
    baseUrl: z.string(),
    token: z.string().describe('`scim_…`: shown this once; only its hash is kept'),
  })
  .meta({ id: 'ScimToken', examples: [{ baseUrl: 'https://api.example.com/scim/v2', token: 'scim_3q2-7wEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLE0' }] });

export const groupSchema = z
  .object({ groupId: uuid, displayName: z.string(), memberCount: z.number().int().describe('live members') })
  .meta({ id: 'Group', examples: [{ groupId: '7d9f2b4e-0c1a-4f5e-9b8d-3a2c1e0f4b6d', displayName: 'Sales', memberCount: 12 }] });

export function scimAdminRoutes(deps: { guards: Guards; billing: BillingHooks; scim: ScimService }): FastifyPluginAsyncZod {
  const { guards, billing, scim } = deps;
  const base = '/v1/orgs/:orgId/integrations/scim';
  return async (app) => {
    app.post(
      base,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'createScimToken',
          summary: 'Turn SCIM provisioning on, or replace its token (admin)',
          description: 'Answers the SCIM base URL and a new bearer token, shown this once; an earlier token stops working at once.',
          tags: ['integrations'],
          params: orgParams,
          response: { 201: scimTokenSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        secretAnswer(reply, 201);
        return scim.enable(writeContext(request));
      },
    );

    app.get(
      base,
      {
        onRequest: guards.org('integration.manage'),
        schema: {
          operationId: 'getScimIntegration',
          summary: 'Whether SCIM is on, its base URL and its last request (admin)',
          tags: ['integrations'],
          params: orgParams,
          response: { 200: scimStatusSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => scim.status(request.params.orgId),
    );

    app.delete(
      base,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'revokeScimToken',
          summary: 'Revoke the SCIM token (admin)',
          description: 'SCIM requests are refused from now on; the users and groups it made stay.',
          tags: ['integrations'],
          params: orgParams,
          response: { 204: z.null().describe('revoked'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await scim.revoke(writeContext(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/v1/orgs/:orgId/groups',
      {
        onRequest: guards.org('user.read'),
        schema: {
          operationId: 'listGroups',
          summary: "The org's groups (pushed by SCIM), oldest first, with their member counts",
          tags: ['users'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(groupSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => scim.pageGroups(request.params.orgId, request.query),
    );
  };
}
