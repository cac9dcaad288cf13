import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../http/guard.ts';
import { errorResponses, listQuery, nullableTimestamp, orgParams, page, timestamp, uuid } from '../http/schemas.ts';
import type { DeploymentService } from './service.ts';
import { SKIP_REASONS } from './service.ts';

const TARGETS = ['gmail', 'outlook'] as const;
const STATES = ['pending', 'deployed', 'failed', 'skipped'] as const;

const deploymentSchema = z
  .object({
    userId: z.uuid(),
    email: z.string().describe("the user's address"),
    target: z.enum(TARGETS),
    state: z.enum(STATES),
    reason: z
      .string()
      .nullable()
      .describe(`why it was skipped: ${SKIP_REASONS.map((r) => `\`${r}\``).join(', ')}; null otherwise`),
    error: z.string().nullable().describe('what the mailbox provider answered, when the deployment failed'),
    deployedAt: nullableTimestamp.describe('when the signature the mailbox holds was deployed'),
    updatedAt: timestamp,
  })
  .meta({ id: 'Deployment' });

export function deploymentRoutes(deps: { guards: Guards; deployments: DeploymentService }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/deployments',
      {
        onRequest: deps.guards.org('deployment.read'),
        schema: {
          operationId: 'listDeployments',
          summary: "Where each user's signature stands in their mailbox (admin)",
          tags: ['integrations'],
          params: orgParams,
          querystring: listQuery.extend({
            userId: uuid.optional().describe("only this user's deployments"),
            target: z.enum(TARGETS).optional().describe('only this target'),
            state: z.enum(STATES).optional().describe('only this state'),
          }),
          response: { 200: page(deploymentSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, userId, target, state } = request.query;
        return deps.deployments.list(request.params.orgId, { userId, target, state }, { limit, cursor });
      },
    );
  };
}
