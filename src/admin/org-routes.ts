// Staff routes over every org (docs/api.md, "Staff"). An org's users, audit and plan status
// are the org routes themselves, which staff may call for any org (kernel/policy.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { staffContext, type Guards } from '../http/guard.ts';
import { errorResponses, listQuery, orgParams, page, text } from '../http/schemas.ts';
import { secretAnswer } from '../http/secret-answer.ts';
import type { OrgAdminService } from './org-admin.ts';
import { adminOrgCreatedSchema, adminOrgCreateSchema, adminOrgOverridesSchema, adminOrgSchema, queryBoolean } from './schemas.ts';

const orgQuery = listQuery.extend({
  q: text().trim().max(200).optional().describe("part of the name, the org id, or the start of the payment provider's customer id"),
  status: text().max(50).optional().describe('subscription status, e.g. `past_due`'),
  blocked: queryBoolean.optional().describe('true: a grace period has ended, writes answer 402'),
  inGrace: queryBoolean.optional().describe('true: a grace period is running'),
  overSeatLimit: queryBoolean.optional(),
  sort: z.enum(['newest', 'oldest', 'name', '-name']).default('newest'),
  // A name order's cursor carries the name (up to 200 characters).
  cursor: text().max(1200).optional().describe('the `nextCursor` of the previous page'),
});

export function adminOrgRoutes(deps: { guards: Guards; orgAdmin: OrgAdminService }): FastifyPluginAsyncZod {
  const { guards, orgAdmin } = deps;
  return async (app) => {
    app.get(
      '/v1/admin/orgs',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'listAdminOrgs',
          summary: 'Search every org (staff)',
          tags: ['admin'],
          querystring: orgQuery,
          response: { 200: page(adminOrgSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, ...query } = request.query;
        return orgAdmin.search(query, { limit, cursor });
      },
    );

    app.post(
      '/v1/admin/orgs',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'createAdminOrg',
          summary: "Create an org and its owner (staff): as the CLI's `org create`",
          description: 'A new org is `trialing`, plan `trial`, 5 seats unless given. The answer holds its first API key, shown once.',
          tags: ['admin'],
          body: adminOrgCreateSchema,
          response: {
            201: adminOrgCreatedSchema,
            ...errorResponses('FORBIDDEN', 'CONFLICT'),
          },
        },
      },
      async (request, reply) => {
        // The answer embeds the org's first API key (and, without mail, the owner's invitation link).
        const created = await orgAdmin.create(staffContext(request), request.body);
        return secretAnswer(reply, 201).send(created);
      },
    );

    app.get(
      '/v1/admin/orgs/:orgId',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'getAdminOrg',
          summary: 'One org with its billing fields and plan status (staff)',
          tags: ['admin'],
          params: orgParams,
          response: { 200: adminOrgSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => orgAdmin.get(request.params.orgId),
    );

    app.patch(
      '/v1/admin/orgs/:orgId',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'setAdminOrgOverrides',
          summary: 'Staff overrides of an org: seats, plan, trial end, monthly quota (staff)',
          description:
            "Each field given is set, `null` clears it; no `version` (a staff setting). The org's effective seats and plan are the override " +
            'where set, else what its payment events give; replaying events never erases an override. A future `trialEndsAt` keeps the org ' +
            'writable until then. Each call is one staff audit entry (`org.overrides`) naming the fields.',
          tags: ['admin'],
          params: orgParams,
          body: adminOrgOverridesSchema,
          response: { 200: adminOrgSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => orgAdmin.setOverrides(staffContext(request), request.params.orgId, request.body),
    );
  };
}
