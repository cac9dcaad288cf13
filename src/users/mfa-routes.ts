// TOTP enrolment of org users through the API (the sign-in pages enrol staff, and users too).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, enforce, writeContext, type Guards } from '../auth/guard.ts';
import { errorResponses, text } from '../http/schemas.ts';
import { AppError } from '../http/errors.ts';
import { manageMfa } from '../auth/policy.ts';
import type { SignIn } from '../auth/idp/sign-in.ts';
import { recordAudit } from '../audit/record.ts';
import type { Db } from '../store/db.ts';
import type { UserService } from './service.ts';
import { userParams } from './schemas.ts';

export function mfaRoutes(deps: { guards: Guards; users: UserService; signIn: SignIn; db: Db }): FastifyPluginAsyncZod {
  const { guards, users, signIn } = deps;
  const target = async (request: { params: { orgId: string; userId: string } }, op: 'enrol' | 'disable', access: ReturnType<typeof accessOf>) => {
    const user = await users.get(request.params.orgId, request.params.userId);
    enforce(manageMfa(access, user, op));
    return user;
  };
  const audit = (tx: Db, request: Parameters<typeof writeContext>[0], action: string, userId: string) =>
    recordAudit(tx, writeContext(request), { action, targetId: userId, changes: ['mfaEnabled'] });

  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/users/:userId/mfa/totp',
      {
        onRequest: guards.org('user.update', { write: true }),
        schema: {
          summary: 'Start TOTP enrolment (the user themselves)',
          description: 'Answers the secret and an `otpauth://` URI; confirm with a code at `…/mfa/totp/verify`.',
          tags: ['users'],
          params: userParams,
          response: { 200: z.object({ secret: z.string(), otpauthUri: z.string() }), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const user = await target(request, 'enrol', accessOf(request));
        const started = await signIn.enrolment(user.id, { restart: true });
        if (!started) throw new AppError('NOT_FOUND', 'User not found.');
        return { secret: started.secret, otpauthUri: started.uri };
      },
    );

    app.post(
      '/v1/orgs/:orgId/users/:userId/mfa/totp/verify',
      {
        onRequest: guards.org('user.update', { write: true }),
        schema: {
          summary: 'Confirm TOTP enrolment with a code from the app',
          tags: ['users'],
          params: userParams,
          body: z.strictObject({ code: text().regex(/^\d{6}$/, 'must be 6 digits') }),
          response: { 200: z.object({ mfaEnabled: z.literal(true) }), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const user = await target(request, 'enrol', accessOf(request));
        await deps.db.transaction().execute(async (tx) => {
          if (!(await signIn.confirmEnrolment(user.id, request.body.code, tx))) {
            throw new AppError('BAD_REQUEST', 'The code does not match the pending enrolment (start one first, then send the current code).', {
              details: { field: 'body.code' },
            });
          }
          await audit(tx, request, 'user.mfa.enable', user.id);
        });
        return { mfaEnabled: true as const };
      },
    );

    app.delete(
      '/v1/orgs/:orgId/users/:userId/mfa/totp',
      {
        onRequest: guards.org('user.update', { write: true }),
        schema: {
          summary: 'Turn TOTP off (the user, or an admin)',
          tags: ['users'],
          params: userParams,
          response: { 200: z.object({ mfaEnabled: z.literal(false) }), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const user = await target(request, 'disable', accessOf(request));
        await deps.db.transaction().execute(async (tx) => {
          await signIn.disableTotp(user.id, tx);
          await audit(tx, request, 'user.mfa.disable', user.id);
        });
        return { mfaEnabled: false as const };
      },
    );
  };
}
