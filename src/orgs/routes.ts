import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Guards } from '../auth/guard.ts';
import type { BillingHooks } from '../billing/hooks.ts';
import { writeContext } from '../auth/guard.ts';
import { errorResponses, orgParams } from '../http/schemas.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import type { OrgService } from './service.ts';
import { orgPatchSchema, orgSchema } from './schemas.ts';

export function orgRoutes(deps: { guards: Guards; billing: BillingHooks; orgs: OrgService }): FastifyPluginAsyncZod {
  const { guards, billing, orgs } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId',
      {
        onRequest: guards.org('org.read'),
        config: { etag: true },
        schema: {
          operationId: 'getOrg',
          summary: 'Read an organisation',
          tags: ['orgs'],
          params: orgParams,
          response: { 200: orgSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => {
        return withEtag(reply, await orgs.read(request.params.orgId, { staff: request.principal?.kind === 'staff' }));
      },
    );

    app.patch(
      '/v1/orgs/:orgId',
      {
        onRequest: [guards.org('org.update'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'updateOrg',
          summary: 'Update an organisation (admin)',
          description: 'Send the `version` you read; a stale one is 409. `If-Match` with a stale ETag is 412.',
          tags: ['orgs'],
          params: orgParams,
          body: orgPatchSchema,
          response: { 200: orgSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        const org = await orgs.update(writeContext(request), versionCheck(request, version), patch);
        return withEtag(reply, org);
      },
    );
  };
}
