// Staff routes over staff (docs/api.md, "Staff"): list, invite, disable, reset TOTP, and the
// staff audit across orgs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { staffContext, type Guards } from '../http/guard.ts';
import { errorResponses, listQuery, page, text, uuid } from '../http/schemas.ts';
import { secretAnswerIf } from '../http/secret-answer.ts';
import type { StaffAdminService } from './staff-admin.ts';
import { invitedStaffSchema, staffAuditEntrySchema, staffInviteSchema, staffSchema } from './schemas.ts';

const staffParams = z.object({ userId: uuid });

export function adminStaffRoutes(deps: { guards: Guards; staffAdmin: StaffAdminService }): FastifyPluginAsyncZod {
  const { guards, staffAdmin } = deps;
  return async (app) => {
    app.get(
      '/v1/admin/staff',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'listStaff',
          summary: 'The staff (super-admins), in the order they were added (staff)',
          tags: ['admin'],
          querystring: listQuery.extend({ status: z.enum(['invited', 'active', 'disabled']).optional() }),
          response: { 200: page(staffSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, status } = request.query;
        return staffAdmin.list({ status }, { limit, cursor });
      },
    );

    app.post(
      '/v1/admin/staff',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'inviteStaff',
          summary: 'Invite a staff member (staff)',
          description:
            'They choose a password through the invitation mailed to them, and enrol TOTP at their first sign-in. Without SMTP_URL no mail is sent and the answer carries `invitationUrl`, to hand over. An email a live staff member has is 409.',
          tags: ['admin'],
          body: staffInviteSchema,
          response: { 201: invitedStaffSchema, ...errorResponses('FORBIDDEN', 'CONFLICT') },
        },
      },
      async (request, reply) => {
        const invited = await staffAdmin.invite(staffContext(request), request.body);
        return secretAnswerIf(reply.code(201), invited.invitationUrl !== undefined).send(invited);
      },
    );

    app.delete(
      '/v1/admin/staff/:userId',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'disableStaff',
          summary: 'Disable a staff member: their sessions and tokens end (staff; never oneself)',
          tags: ['admin'],
          params: staffParams,
          response: { 200: staffSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => staffAdmin.disable(staffContext(request), request.params.userId),
    );

    app.post(
      '/v1/admin/staff/:userId/mfa/reset',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'resetStaffMfa',
          summary: "Reset another staff member's TOTP: their next sign-in enrols a new one (staff; never one's own)",
          tags: ['admin'],
          params: staffParams,
          response: { 200: staffSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => staffAdmin.resetMfa(staffContext(request), request.params.userId),
    );

    app.get(
      '/v1/admin/audit',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'listStaffAudit',
          summary: 'Every staff action, across orgs, newest first (staff)',
          tags: ['admin'],
          querystring: listQuery.extend({
            action: text().max(100).optional().describe('only this action, e.g. `org.create`'),
            actorId: uuid.optional().describe('only this staff member'),
            orgId: uuid.optional().describe('only actions on this org'),
          }),
          response: { 200: page(staffAuditEntrySchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { limit, cursor, action, actorId, orgId } = request.query;
        return staffAdmin.audit({ action, actorId: actorId?.toLowerCase(), orgId: orgId?.toLowerCase() }, { limit, cursor });
      },
    );
  };
}
