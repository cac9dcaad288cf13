import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Guards, BillingHooks } from '../http/guard.ts';
import { writeContext } from '../http/guard.ts';
import { errorResponses, orgParams } from '../http/schemas.ts';
import { etagOf, parseIfMatch, versionCheck, withEtag } from '../http/concurrency.ts';
import { customFieldListSchema } from '../http/profile-schemas.ts';
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

    app.get(
      '/v1/orgs/:orgId/fields',
      {
        onRequest: guards.org('org.read'),
        config: { etag: true },
        schema: {
          operationId: 'getCustomFields',
          summary: "The org's custom fields, with an ETag",
          tags: ['orgs'],
          params: orgParams,
          response: { 200: customFieldListSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const { fields, version } = await orgs.fields(request.params.orgId);
        reply.header('etag', etagOf(version));
        return fields;
      },
    );

    app.put(
      '/v1/orgs/:orgId/fields',
      {
        onRequest: [guards.org('org.update'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'replaceCustomFields',
          summary: "Replace the org's custom fields (admin)",
          description:
            'The whole list, in order. Send `If-Match` with the ETag you read: a stale one is 412; without it the last write wins. A field left out takes its values with it (users lose them); a field whose type changes drops the values not of the new type.',
          tags: ['orgs'],
          params: orgParams,
          body: customFieldListSchema,
          response: { 200: customFieldListSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const header = request.headers['if-match'];
        const ifMatch = parseIfMatch(typeof header === 'string' ? header : undefined);
        const { fields, version } = await orgs.replaceFields(writeContext(request), request.body, ifMatch);
        reply.header('etag', etagOf(version));
        return fields;
      },
    );
  };
}
