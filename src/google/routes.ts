import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, orgParams, type ZodApp } from '../http/schemas.ts';
import { SCOPES } from './errors.ts';
import type { GoogleService } from './service.ts';
import {
  connectionTestSchema,
  directoryResultSchema,
  googleConnectSchema,
  googleIntegrationSchema,
  jobStartedSchema,
  presentIntegration,
  presentJob,
  syncQuery,
} from './schemas.ts';

const SCOPE_LIST = [SCOPES.directory, SCOPES.gmail];

export function googleRoutes(deps: { guards: Guards; billing: BillingHooks; google: GoogleService }): FastifyPluginAsyncZod {
  const { guards, billing, google } = deps;
  const base = '/v1/orgs/:orgId/integrations/google';
  const present = async (orgId: string) => {
    const { row, counts, lastRun } = await google.status(orgId);
    return presentIntegration(row, counts, lastRun, SCOPE_LIST);
  };
  /** The connection: make, read, remove. */
  const connection = (app: ZodApp): void => {
    app.put(
      base,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'connectGoogle',
          summary: 'Connect Google Workspace, or change the connection (admin)',
          description:
            "Stores the service account's private key encrypted with SECRETS_KEY (never returned; 503 while SECRETS_KEY is not set). A new connection, or a new key, queues a directory sync and a push of every signature.",
          tags: ['integrations'],
          params: orgParams,
          body: googleConnectSchema,
          response: { 200: googleIntegrationSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED', 'SERVICE_UNAVAILABLE') },
        },
      },
      async (request) => {
        await google.connect(writeContext(request), request.body);
        return present(request.params.orgId);
      },
    );

    app.get(
      base,
      {
        onRequest: guards.org('integration.manage'),
        schema: {
          operationId: 'getGoogleIntegration',
          summary: 'The Google Workspace connection and its status (admin)',
          tags: ['integrations'],
          params: orgParams,
          response: { 200: googleIntegrationSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => present(request.params.orgId),
    );

    app.delete(
      base,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'disconnectGoogle',
          summary: 'Disconnect Google Workspace (admin)',
          description: 'Forgets the key and what was deployed; users and the signatures already in Gmail stay.',
          tags: ['integrations'],
          params: orgParams,
          response: { 204: z.null().describe('disconnected'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await google.disconnect(writeContext(request));
        return reply.code(204).send(null);
      },
    );
  };

  /** Its runs: test the connection, sync the directory, push the signatures. */
  const runs = (app: ZodApp): void => {
    app.post(
      `${base}/test`,
      {
        // A non-GET route like the others: the billing gate holds it too (docs/guide.md, What 402 gates).
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'testGoogleConnection',
          summary: "Test the connection: a token, one directory page, the admin's Gmail settings (admin)",
          description: "Answers 200 whatever Google says: each step's `message` tells, in plain words, what Google answered.",
          tags: ['integrations'],
          params: orgParams,
          response: { 200: connectionTestSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => google.test(request.params.orgId),
    );

    app.post(
      `${base}/sync`,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'syncGoogleDirectory',
          summary: 'Sync the users from the directory now (admin)',
          description: '202 with the job; with `?dryRun=true`, 200 with what a sync would change, and nothing changed.',
          tags: ['integrations'],
          params: orgParams,
          querystring: syncQuery,
          response: { 200: directoryResultSchema, 202: jobStartedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        if (request.query.dryRun === 'true') {
          const { created, updated, deleted, skipped, changes } = await google.dryRunSync(request.params.orgId);
          return { created, updated, deleted, skipped, changes };
        }
        reply.code(202);
        return presentJob(await google.start(writeContext(request), 'sync'));
      },
    );

    app.post(
      `${base}/push`,
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'pushGoogleSignatures',
          summary: "Push every user's signature into Gmail now (admin)",
          description: 'Only signatures that differ from what was last deployed are sent; see `GET …/deployments`.',
          tags: ['integrations'],
          params: orgParams,
          response: { 202: jobStartedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return presentJob(await google.start(writeContext(request), 'push'));
      },
    );
  };

  return async (app) => {
    connection(app);
    runs(app);
  };
}
