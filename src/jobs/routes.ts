import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../http/guard.ts';
import { errorResponses, nullableTimestamp, orgParams, timestamp, uuid } from '../http/schemas.ts';
import type { JobService } from './service.ts';
import { EXAMPLE } from '../http/examples.ts';

export const jobSchema = z
  .object({
    jobId: z.string(),
    kind: z.string().describe('what the job does, e.g. `mail.send`, `google.sync`'),
    state: z.enum(['queued', 'running', 'succeeded', 'failed']),
    createdAt: timestamp,
    startedAt: nullableTimestamp.describe('when it first ran'),
    finishedAt: nullableTimestamp,
    progress: z.object({ done: z.number().int().nullable(), total: z.number().int().nullable() }),
    error: z.string().nullable().describe('why the last attempt failed (kept while a retry waits)'),
  })
  .meta({
    id: 'Job',
    examples: [
      {
        jobId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
        kind: 'google.sync',
        state: 'running',
        createdAt: EXAMPLE.createdAt,
        startedAt: EXAMPLE.createdAt,
        finishedAt: null,
        progress: { done: 120, total: 450 },
        error: null,
      },
    ],
  });

export function jobRoutes(deps: { guards: Guards; jobs: JobService }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/jobs/:jobId',
      {
        onRequest: deps.guards.org('job.read'),
        schema: {
          operationId: 'getJob',
          summary: 'Read a background job (admin)',
          description: 'The state of a job the org started (a directory sync, a signature push, a mail).',
          tags: ['jobs'],
          params: orgParams.extend({ jobId: uuid }),
          response: { 200: jobSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => deps.jobs.get(request.params.orgId, request.params.jobId),
    );
  };
}
