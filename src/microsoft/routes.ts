// The Microsoft Entra connection's routes (docs/entra-sync.md), admin only: connect, read,
// disconnect, and sync now (a job) or as a dry run (the answer, and no change).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, iso, isoOrNull, nullableTimestamp, orgParams, text, timestamp, uuid } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import type { MicrosoftIntegrationRow, DirectoryRunRow } from '../store/schema.ts';
import type { MicrosoftService } from './service.ts';

const counts = { created: z.number().int(), updated: z.number().int(), deleted: z.number().int(), skipped: z.number().int() };

const connectionSchema = z
  .object({
    tenantId: z.string(),
    clientId: z.string(),
    lastSyncAt: nullableTimestamp.describe('when a sync last finished'),
    nextSyncAt: timestamp.describe('when the scheduler queues the next one (every MICROSOFT_SYNC_INTERVAL_S)'),
    lastError: z.string().nullable().describe('what the last failed sync said, in plain words; null once one succeeds'),
    lastErrorAt: nullableTimestamp,
    lastRun: z
      .object({ ...counts, startedAt: timestamp, finishedAt: nullableTimestamp })
      .nullable()
      .describe('the counts of the last sync that ran'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'MicrosoftIntegration',
    description: 'The client secret is never answered.',
    examples: [
      {
        tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        clientId: '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d',
        lastSyncAt: EXAMPLE.updatedAt,
        nextSyncAt: '2026-01-12T15:05:00.000Z',
        lastError: null,
        lastErrorAt: null,
        lastRun: { created: 12, updated: 3, deleted: 1, skipped: 0, startedAt: EXAMPLE.updatedAt, finishedAt: EXAMPLE.updatedAt },
        createdAt: EXAMPLE.createdAt,
        updatedAt: EXAMPLE.updatedAt,
      },
    ],
  });

const present = (row: MicrosoftIntegrationRow, lastRun: DirectoryRunRow | null) => ({
  tenantId: row.tenant_id,
  clientId: row.client_id,
  lastSyncAt: isoOrNull(row.last_sync_at),
  nextSyncAt: iso(row.next_sync_at),
  lastError: row.last_error,
  lastErrorAt: isoOrNull(row.last_error_at),
  lastRun: lastRun
    ? {
        created: lastRun.created,
        updated: lastRun.updated,
        deleted: lastRun.deleted,
        skipped: lastRun.skipped,
        startedAt: iso(lastRun.started_at),
        finishedAt: isoOrNull(lastRun.finished_at),
      }
    : null,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const queuedSchema = z
  .object({ jobId: uuid, kind: z.string(), state: z.enum(['queued', 'running', 'succeeded', 'failed']), createdAt: timestamp })
  .meta({ examples: [{ jobId: '5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716', kind: 'microsoft.sync', state: 'queued', createdAt: EXAMPLE.updatedAt }] });

const dryRunSchema = z
  .object({
    ...counts,
    changes: z.array(
      z.object({
        action: z.enum(['create', 'update', 'delete', 'skip']),
        userId: uuid.nullable(),
        email: z.string(),
        fields: z.array(z.string()).optional(),
        reason: z.string().optional(),
      }),
    ),
  })
  .meta({
    examples: [{ created: 1, updated: 0, deleted: 0, skipped: 0, changes: [{ action: 'create', userId: null, email: 'ada@contoso.com' }] }],
  });

const tenantId = text()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/, { message: 'must be the directory (tenant) id, a GUID, or its domain (contoso.onmicrosoft.com)' });

export function microsoftRoutes(deps: { guards: Guards; billing: BillingHooks; microsoft: MicrosoftService }): FastifyPluginAsyncZod {
  const { guards, billing, microsoft } = deps;
  return async (app) => {
    app.put(
      '/v1/orgs/:orgId/integrations/microsoft',
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'connectMicrosoft',
          summary: 'Connect Microsoft Entra ID (admin): the app registration whose users are synced',
          description:
            'The app needs the Microsoft Graph application permission User.Read.All, with admin consent. The secret is stored sealed (SECRETS_KEY) and never answered. A first sync is queued.',
          tags: ['integrations'],
          params: orgParams,
          body: z
            .strictObject({
              tenantId,
              clientId: uuid.describe('the application (client) id of the app registration'),
              clientSecret: text().min(1).max(1000).describe('a client secret of the app registration (its value, not its id)'),
            })
            .meta({
              examples: [
                {
                  tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
                  clientId: '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d',
                  clientSecret: 'Q~8Xr…(the secret value)',
                },
              ],
            }),
          response: { 200: connectionSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED', 'SERVICE_UNAVAILABLE') },
        },
      },
      async (request) => {
        const { row } = await microsoft.connect(writeContext(request), request.body);
        const { lastRun } = await microsoft.status(row.org_id);
        return present(row, lastRun);
      },
    );

    app.get(
      '/v1/orgs/:orgId/integrations/microsoft',
      {
        onRequest: guards.org('integration.manage'),
        schema: {
          operationId: 'getMicrosoft',
          summary: 'The Microsoft Entra connection and how its syncs went (admin)',
          tags: ['integrations'],
          params: orgParams,
          response: { 200: connectionSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const { row, lastRun } = await microsoft.status(request.params.orgId);
        return present(row, lastRun);
      },
    );

    app.delete(
      '/v1/orgs/:orgId/integrations/microsoft',
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'disconnectMicrosoft',
          summary: 'Disconnect Microsoft Entra ID (admin); synced users stay',
          tags: ['integrations'],
          params: orgParams,
          response: { 204: z.null().describe('disconnected'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await microsoft.disconnect(writeContext(request));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v1/orgs/:orgId/integrations/microsoft/sync',
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'syncMicrosoft',
          summary: 'Sync the Entra directory now (202, a job), or see what a sync would change (?dryRun=true, 200)',
          tags: ['integrations'],
          params: orgParams,
          querystring: z.object({
            dryRun: z.enum(['true', 'false']).default('false').describe('true: read the directory now and answer the changes, making none'),
          }),
          response: { 200: dryRunSchema, 202: queuedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        if (request.query.dryRun === 'true') {
          const { created, updated, deleted, skipped, changes } = await microsoft.dryRun(request.params.orgId);
          return reply.code(200).send({ created, updated, deleted, skipped, changes });
        }
        const job = await microsoft.startSync(writeContext(request));
        return reply.code(202).send({ jobId: job.jobId, kind: job.kind, state: job.state, createdAt: iso(job.createdAt) });
      },
    );
  };
}
