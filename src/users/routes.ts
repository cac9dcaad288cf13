import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, orgParams, page, type ZodApp } from '../http/schemas.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import type { UserService } from './service.ts';
import type { PeopleService } from '../people/module.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { secretAnswerIf } from '../http/secret-answer.ts';
import type { User } from './resource.ts';
import { userCreateSchema, userListQuery, userParams, userPatchSchema, userSchema } from './schemas.ts';

export function userRoutes(deps: { guards: Guards; billing: BillingHooks; users: UserService; people: PeopleService }): FastifyPluginAsyncZod {
  const { guards, billing, users, people } = deps;
  /**
   * Invited users' links, for admins only (and only when no mail carries them). A link sets the
   * password of the account it names, so an answer that carries one is no cache's to keep.
   */
  const withLinks = async (request: FastifyRequest, reply: FastifyReply, found: User[]): Promise<User[]> => {
    const links = await people.invitationLinks(
      accessOf(request),
      found.map((u) => ({ id: u.userId, status: u.status, role: u.role })),
    );
    secretAnswerIf(reply, links.size > 0);
    return found.map((u) => (links.has(u.userId) ? { ...u, invitationUrl: links.get(u.userId)! } : u));
  };
  const withLink = async (request: FastifyRequest, reply: FastifyReply, user: User): Promise<User> => (await withLinks(request, reply, [user]))[0]!;
  /** The org's users: list and create. */
  const collection = (app: ZodApp): void => {
    app.get(
      '/v1/orgs/:orgId/users',
      {
        onRequest: guards.org('user.read'),
        schema: {
          operationId: 'listUsers',
          summary: "List the org's users, oldest first or sorted by a column; search and filters narrow the list",
          tags: ['users'],
          params: orgParams,
          querystring: userListQuery,
          response: { 200: page(userSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request, reply) => {
        const { limit, cursor, sort, ...filter } = request.query;
        const result = await users.list(request.params.orgId, { limit, cursor }, filter, sort);
        return { items: await withLinks(request, reply, result.items), nextCursor: result.nextCursor };
      },
    );

    app.post(
      '/v1/orgs/:orgId/users',
      {
        onRequest: [guards.org('user.create'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'createUser',
          summary: 'Create a user (admin; only an owner creates an owner)',
          description:
            'Without `temporaryPassword` the user is invited: `status` is `invited`, a mail with a one-time link goes to the address (or, without SMTP_URL, the answer carries `invitationUrl` to hand over). An address a live user of any org has is 409.',
          tags: ['users'],
          params: orgParams,
          body: userCreateSchema,
          response: { 201: userSchema, ...errorResponses('FORBIDDEN', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const user = await users.create(accessOf(request), writeContext(request), request.body);
        secretAnswerIf(reply.code(201), user.invitationUrl !== undefined);
        return withEtag(reply, user);
      },
    );
  };

  /** One user: read, change, delete. */
  const item = (app: ZodApp): void => {
    app.get(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: guards.org('user.read'),
        config: { etag: true },
        schema: {
          operationId: 'getUser',
          summary: 'Read a user',
          tags: ['users'],
          params: userParams,
          response: { 200: userSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const user = await users.get(request.params.orgId, request.params.userId);
        return withEtag(reply, await withLink(request, reply, user));
      },
    );

    app.patch(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'updateUser',
          summary: 'Update a user',
          description:
            'Members may edit only their own profile, and of it only the fields the org\'s `selfServiceFields` name and the custom fields marked `selfService` (403 otherwise; docs/api.md, "Profiles"). `social` and `attributes` merge: a key set to null is removed. `role` and `email` are admin-only. The owner may not lower their own role. Send `version`; a stale one is 409, a stale `If-Match` 412.',
          tags: ['users'],
          params: userParams,
          body: userPatchSchema,
          response: { 200: userSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        const user = await users.update(accessOf(request), writeContext(request), request.params.userId, versionCheck(request, version), patch);
        return withEtag(reply, await withLink(request, reply, user));
      },
    );

    app.delete(
      '/v1/orgs/:orgId/users/:userId',
      {
        onRequest: [guards.org('user.delete'), billing.writeGate],
        schema: {
          operationId: 'deleteUser',
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

  return async (app) => {
    collection(app);
    item(app);
  };
}
