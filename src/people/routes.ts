import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, iso, text, timestamp, userParams, uuid } from '../http/schemas.ts';
import type { PeopleService } from './service.ts';
import { EXAMPLE } from '../http/examples.ts';
import { secretAnswerIf } from '../http/secret-answer.ts';

const invitationSchema = z
  .object({
    userId: uuid,
    email: z.string(),
    expiresAt: timestamp,
    jobId: z.string().nullable().describe("the mail's background job (`GET …/jobs/{jobId}`); null without SMTP_URL"),
    invitationUrl: z.string().optional().describe('without SMTP_URL: the link to hand over (the previous one stopped working)'),
  })
  .meta({
    id: 'Invitation',
    examples: [{ userId: EXAMPLE.userId, email: 'ada@acme.example', expiresAt: EXAMPLE.updatedAt, jobId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e' }],
  });

const passwordChangeSchema = z
  .strictObject({
    currentPassword: text().min(1).max(1024),
    newPassword: text().max(1024).describe('at least 12 characters, different from the current one'),
  })
  .meta({ examples: [{ currentPassword: 'the one I use today', newPassword: 'a longer one for tomorrow' }] });

export function peopleRoutes(deps: { guards: Guards; billing: BillingHooks; people: PeopleService }): FastifyPluginAsyncZod {
  const { guards, billing, people } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/users/:userId/invitation',
      {
        onRequest: [guards.org('user.invite'), billing.writeGate],
        schema: {
          operationId: 'resendInvitation',
          summary: 'Send an invited user a new invitation (admin)',
          description:
            'The previous link stops working. 409 when the user is already `active`. At most 5 resends to one user an hour: past them 429 with `details.scope` `mail` and `Retry-After` to the next hour.',
          tags: ['users'],
          params: userParams,
          response: { 200: invitationSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED', 'TOO_MANY_REQUESTS') },
        },
      },
      async (request, reply) => {
        const { user, invitation } = await people.resend(accessOf(request), writeContext(request), request.params.userId);
        secretAnswerIf(reply, !invitation.jobId);
        return {
          userId: user.id,
          email: user.email,
          expiresAt: iso(invitation.expiresAt),
          jobId: invitation.jobId ?? null,
          ...(invitation.jobId ? {} : { invitationUrl: invitation.url }),
        };
      },
    );

    app.post(
      '/v1/orgs/:orgId/users/:userId/password',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        schema: {
          operationId: 'changeOwnPassword',
          summary: 'Change your own password',
          description:
            'Only the user, with their own ID token. A wrong `currentPassword` is 400 (field `currentPassword`) and counts against the account like a wrong sign-in. The change ends every session and refresh token of the account.',
          tags: ['users'],
          params: userParams,
          body: passwordChangeSchema,
          response: { 204: z.null().describe('changed'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await people.changeOwnPassword(accessOf(request), writeContext(request), request.params.userId, request.body);
        return reply.code(204).send(null);
      },
    );
  };
}
