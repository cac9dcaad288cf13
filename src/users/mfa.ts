// TOTP enrolment of org users through the API (the sign-in pages enrol staff, and users too).
// The policy is judged against the stored user; each change and its audit entry share a transaction.
import type { Db } from '../store/db.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import { enforce, manageMfa, type Access } from '../kernel/policy.ts';
import type { SignIn } from '../idp/module.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import type { UserService } from './service.ts';
import type { Invalidate } from '../cache/namespaces.ts';

export function createMfaService(deps: { db: Db; users: UserService; signIn: SignIn; invalidate: Invalidate }) {
  const { db, users, signIn, invalidate } = deps;
  const target = async (access: Access, userId: string, op: 'enrol' | 'disable') => {
    const user = await users.get(access.orgId, userId);
    enforce(manageMfa(access, { id: user.userId, role: user.role }, op));
    return user;
  };
  const audit = (tx: Db, ctx: WriteContext, action: string, userId: string) => recordAudit(tx, ctx, { action, targetId: userId, changes: ['mfaEnabled'] });

  return {
    /** Starts (or restarts) an enrolment: the secret is shown once, to the user themselves. */
    async start(access: Access, userId: string): Promise<{ secret: string; otpauthUri: string }> {
      const user = await target(access, userId, 'enrol');
      const started = await signIn.enrolment(user.userId, { restart: true });
      if (!started) throw notFound('User');
      return { secret: started.secret, otpauthUri: started.uri };
    },

    async confirm(access: Access, ctx: WriteContext, userId: string, code: string): Promise<void> {
      const user = await target(access, userId, 'enrol');
      await db.transaction().execute(async (tx) => {
        if (!(await signIn.confirmEnrolment(user.userId, code, tx))) {
          throw new AppError('BAD_REQUEST', 'The code does not match the pending enrolment (start one first, then send the current code).', {
            details: { field: 'body.code' },
          });
        }
        await audit(tx, ctx, 'user.mfa.enable', user.userId);
      });
      invalidate.userChanged(user.orgId, user.userId);
    },

    async disable(access: Access, ctx: WriteContext, userId: string): Promise<void> {
      const user = await target(access, userId, 'disable');
      await db.transaction().execute(async (tx) => {
        await signIn.disableTotp(user.userId, tx);
        await audit(tx, ctx, 'user.mfa.disable', user.userId);
      });
      invalidate.userChanged(user.orgId, user.userId);
    },
  };
}

export type MfaService = ReturnType<typeof createMfaService>;
