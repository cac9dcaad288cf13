// TOTP enrolment of org users through the API; the rules and the audit live in mfa.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, text } from '../http/schemas.ts';
import type { MfaService } from './mfa.ts';
import { userParams } from './schemas.ts';

export function mfaRoutes(deps: { guards: Guards; billing: BillingHooks; mfa: MfaService }): FastifyPluginAsyncZod {
  const { guards, billing, mfa } = deps;
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/users/:userId/mfa/totp',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        schema: {
          operationId: 'startTotpEnrolment',
          summary: 'Start TOTP enrolment (the user themselves)',
          description: 'Answers the secret and an `otpauth://` URI; confirm with a code at `…/mfa/totp/verify`.',
          tags: ['users'],
          params: userParams,
          response: {
            200: z.object({ secret: z.string(), otpauthUri: z.string() }).meta({
              examples: [
                {
                  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
                  otpauthUri: 'otpauth://totp/Signature%20Service:ada%40acme.example?issuer=Signature%20Service&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
                },
              ],
            }),
            ...errorResponses('FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request) => mfa.start(accessOf(request), request.params.userId),
    );

    app.post(
      '/v1/orgs/:orgId/users/:userId/mfa/totp/verify',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        schema: {
          operationId: 'confirmTotpEnrolment',
          summary: 'Confirm TOTP enrolment with a code from the app',
          tags: ['users'],
          params: userParams,
          body: z.strictObject({ code: text().regex(/^\d{6}$/, 'must be 6 digits') }).meta({ examples: [{ code: '492039' }] }),
          response: { 200: z.object({ mfaEnabled: z.literal(true) }).meta({ examples: [{ mfaEnabled: true }] }), ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        await mfa.confirm(accessOf(request), writeContext(request), request.params.userId, request.body.code);
        return { mfaEnabled: true as const };
      },
    );

    app.delete(
      '/v1/orgs/:orgId/users/:userId/mfa/totp',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        schema: {
          operationId: 'disableTotp',
          summary: 'Turn TOTP off (the user, or an admin)',
          tags: ['users'],
          params: userParams,
          response: {
            200: z.object({ mfaEnabled: z.literal(false) }).meta({ examples: [{ mfaEnabled: false }] }),
            ...errorResponses('FORBIDDEN', 'NOT_FOUND'),
          },
        },
      },
      async (request) => {
        await mfa.disable(accessOf(request), writeContext(request), request.params.userId);
        return { mfaEnabled: false as const };
      },
    );
  };
}
