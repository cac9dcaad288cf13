import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, writeContext, type Guards } from '../auth/guard.ts';
import type { BillingHooks } from '../billing/hooks.ts';
import { errorResponses, listQuery, orgParams, page } from '../http/schemas.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import type { UserService } from './service.ts';
import { presentUser, userCreateSchema, userParams, userPatchSchema, userSchema } from './schemas.ts';

export function userRoutes(deps: { guards: Guards; billing: BillingHooks; users: UserService }): FastifyPluginAsyncZod {
  const { guards, billing, users } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/users',
      {
        onRequest: guards.org('user.read'),
        schema: {
          summary: "List the org's users",
          tags: ['users'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(userSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const result = await users.list(request.params.orgId, request.query);
        return { items: result.items.map(presentUser), nextCursor: result.nextCursor };
      },
    );

    app.post(
      '/v1/orgs/:orgId/users',
      {
        onRequest: [guards.org('user.create'), billing.writeGate],
        schema: {
          summary: 'Create a user (admin; only an owner creates an owner)',
          tags: ['users'],
          params: orgParams,
          body: userCreateSchema,
          response: { 201: userSchema, ...errorResponses('FORBIDDEN', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const user = await users.create(accessOf(request), writeContext(request), request.body);
        reply.code(201);
        return withEtag(reply, presentUser(user));
      },
    );

    app.get(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: guards.org('user.read'),
        schema: {
          summary: 'Read a user',
          tags: ['users'],
          params: userParams,
          response: { 200: userSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => withEtag(reply, presentUser(await users.get(request.params.orgId, request.params.userId))),
    );

    app.patch(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        schema: {
          summary: 'Update a user',
          description:
            'Members may edit their own profile fields; `role` and `email` are admin-only. The owner may not lower their own role. Send `version`; a stale one is 409, a stale `If-Match` 412.',
          tags: ['users'],
          params: userParams,
          body: userPatchSchema,
          response: { 200: userSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        const user = await users.update(
          accessOf(request),
          writeContext(request),
          request.params.userId,
          versionCheck(request, version),
          patch,
        );
        return withEtag(reply, presentUser(user));
      },
    );

    app.delete(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: [guards.org('user.delete'), billing.writeGate],
        schema: {
          summary: 'Delete a user (soft delete; admin)',
          tags: ['users'],
          params: userParams,
          response: { 204: z.null().describe('deleted'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await users.remove(accessOf(request), writeContext(request), request.params.userId);
        return reply.code(204).send(null);
      },
    );
  };
}
