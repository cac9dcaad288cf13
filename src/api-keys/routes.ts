import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, listQuery, nullableTimestamp, orgParams, page, text, timestamp, uuid } from '../http/schemas.ts';
import type { ApiKeyService } from './service.ts';
import { EXAMPLE } from '../http/examples.ts';
import { secretAnswer } from '../http/secret-answer.ts';

const apiKeySchema = z
  .object({
    keyId: uuid,
    name: z.string(),
    prefix: z.string().describe('the start of the key, to recognise it; never enough to use it'),
    createdAt: timestamp,
    lastUsedAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
  })
  .meta({
    id: 'ApiKey',
    examples: [
      {
        keyId: EXAMPLE.keyId,
        name: 'CRM sync',
        prefix: 'svc_live_4f9a',
        createdAt: EXAMPLE.createdAt,
        lastUsedAt: EXAMPLE.updatedAt,
        revokedAt: null,
      },
    ],
  });

const mintedSchema = apiKeySchema.extend({ key: z.string().describe('the secret, shown this once: store it now') }).meta({
  id: 'MintedApiKey',
  examples: [
    {
      keyId: EXAMPLE.keyId,
      name: 'CRM sync',
      prefix: 'svc_live_4f9a',
      createdAt: EXAMPLE.createdAt,
      lastUsedAt: null,
      revokedAt: null,
      key: 'svc_live_4f9a0c2e7b1d4e8f9a3c5b7d1e2f4a6c8b0d2e4f',
    },
  ],
});

export function apiKeyRoutes(deps: { guards: Guards; billing: BillingHooks; apiKeys: ApiKeyService }): FastifyPluginAsyncZod {
  const { guards, billing, apiKeys } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/api-keys',
      {
        onRequest: [guards.org('apiKey.manage'), billing.writeGate],
        schema: {
          operationId: 'createApiKey',
          summary: 'Mint an API key (admin)',
          description: 'The answer carries the secret `key` once; only its hash is stored. Keys act with the admin role.',
          tags: ['api-keys'],
          params: orgParams,
          body: z.strictObject({ name: text().trim().min(1).max(100) }).meta({ examples: [{ name: 'CRM sync' }] }),
          response: { 201: mintedSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const minted = await apiKeys.mint(writeContext(request), request.body);
        secretAnswer(reply, 201);
        return minted;
      },
    );

    app.get(
      '/v1/orgs/:orgId/api-keys',
      {
        onRequest: guards.org('apiKey.manage'),
        schema: {
          operationId: 'listApiKeys',
          summary: "List the org's API keys, revoked ones included (admin)",
          tags: ['api-keys'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(apiKeySchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        return apiKeys.list(request.params.orgId, request.query);
      },
    );

    app.delete(
      '/v1/orgs/:orgId/api-keys/:keyId',
      {
        onRequest: guards.org('apiKey.manage'),
        schema: {
          operationId: 'revokeApiKey',
          summary: 'Revoke an API key (admin)',
          description: 'Effective at once on this instance and within 5 s on every other. Never blocked by billing.',
          tags: ['api-keys'],
          params: z.object({ orgId: uuid, keyId: uuid }),
          response: {
            200: z
              .object({ keyId: uuid, revoked: z.literal(true), revokedAt: timestamp })
              .meta({ examples: [{ keyId: EXAMPLE.keyId, revoked: true, revokedAt: EXAMPLE.updatedAt }] }),
            ...errorResponses('FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request) => {
        return apiKeys.revoke(writeContext(request), request.params.keyId);
      },
    );
  };
}
