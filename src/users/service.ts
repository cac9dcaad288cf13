import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import type { OrgRole, UserRow } from '../store/schema.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { decodeCursor, toPage, type PageRequest } from '../store/pagination.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { conflict, notFound } from '../errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import * as policy from '../auth/policy.ts';
import { enforce, type Access } from '../auth/policy.ts';
import { hashPassword } from '../auth/passwords.ts';
import type { Invalidate } from '../cache/namespaces.ts';

export interface UserProfile {
  name: string;
  title: string;
  department: string;
  phone: string;
  mobile: string;
}

export type UserPatch = Partial<UserProfile> & {
  email?: string | undefined;
  role?: OrgRole | undefined;
  temporaryPassword?: string | undefined;
};

/** Runs before a user is created or restored, inside its transaction (the seat cap lives here). */
export type SeatCheck = (tx: Db, orgId: string) => Promise<void>;

const emailTaken = (email: string) =>
  conflict(`A user with the email ${email} already exists in this organisation.`, { field: 'email' });

export function createUserService(deps: { db: Db; invalidate: Invalidate; seatCheck?: SeatCheck }) {
  const { db, invalidate } = deps;
  return {
    async get(orgId: string, userId: string): Promise<UserRow> {
      const user = await usersRepo.find(db, orgId, userId);
      if (!user) throw notFound('User');
      return user;
    },

    async list(orgId: string, page: PageRequest) {
      const rows = await usersRepo.list(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, (r) => r);
    },

    async create(
      access: Access,
      ctx: WriteContext,
      { temporaryPassword, ...input }: UserProfile & { email: string; role: OrgRole; temporaryPassword?: string | undefined },
    ): Promise<UserRow> {
      const decision = policy.createUser(access, input.role);
      enforce(decision);
      try {
        const user = await db.transaction().execute(async (tx) => {
          await deps.seatCheck?.(tx, ctx.orgId);
          const row = await usersRepo.insert(tx, {
            id: randomUUID(),
            org_id: ctx.orgId,
            password_hash: temporaryPassword ? await hashPassword(temporaryPassword) : null,
            password_must_change: temporaryPassword !== undefined,
            ...input,
          });
          await recordAudit(tx, ctx, {
            action: 'user.create',
            targetId: row.id,
            changes: changedFields({ ...input, password: temporaryPassword }),
          });
          return row;
        });
        invalidate.userChanged(ctx.orgId, user.id);
        return user;
      } catch (err) {
        if (isUniqueViolation(err, 'users_org_email_live')) throw emailTaken(input.email);
        throw err;
      }
    },

    async update(access: Access, ctx: WriteContext, userId: string, check: VersionCheck, patch: UserPatch): Promise<UserRow> {
      const target = await usersRepo.find(db, ctx.orgId, userId);
      if (!target) throw notFound('User');
      const decision = policy.updateUser(access, target, patch);
      enforce(decision);
      try {
        const { temporaryPassword, ...fields } = patch;
        const passwordHash = temporaryPassword ? await hashPassword(temporaryPassword) : undefined;
        const user = await db.transaction().execute(async (tx) => {
          // Conditional on the version: the row the policy judged is the row that changes.
          const updated = await usersRepo.update(tx, ctx.orgId, userId, check, {
            ...fields,
            ...(passwordHash ? { password_hash: passwordHash, password_must_change: true, failed_logins: 0, locked_until: null } : {}),
          });
          if (!updated) throw versionMismatch('User', await usersRepo.find(tx, ctx.orgId, userId), check);
          await recordAudit(tx, ctx, {
            action: 'user.update',
            targetId: userId,
            changes: changedFields({ ...fields, password: temporaryPassword }),
          });
          // A password set by an admin ends the user's sessions and refresh tokens.
          if (passwordHash) await oidcRepo.revokeAccount(tx, userId);
          return updated;
        });
        invalidate.userChanged(ctx.orgId, userId);
        return user;
      } catch (err) {
        if (isUniqueViolation(err, 'users_org_email_live')) throw emailTaken(patch.email ?? '');
        throw err;
      }
    },

    async remove(access: Access, ctx: WriteContext, userId: string): Promise<void> {
      const target = await usersRepo.find(db, ctx.orgId, userId);
      if (!target) throw notFound('User');
      const decision = policy.deleteUser(access, target);
      enforce(decision);
      await db.transaction().execute(async (tx) => {
        const deleted = await usersRepo.softDelete(tx, ctx.orgId, userId);
        if (!deleted) throw notFound('User');
        await recordAudit(tx, ctx, { action: 'user.delete', targetId: userId, changes: ['deletedAt'] });
        // A deleted user's sessions and refresh tokens end with them.
        await oidcRepo.revokeAccount(tx, userId);
      });
      invalidate.userChanged(ctx.orgId, userId);
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
