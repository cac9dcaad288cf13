// What staff do with staff (docs/api.md, "Staff"): list, invite, disable, reset another's
// TOTP, and read the staff audit. Each change and its audit entry (the staff member as actor, the
// request's correlation id, no org) share a transaction.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { staffRepo, type StaffStatus } from '../store/repositories/staff.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { auditRepo } from '../store/repositories/audit.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { conflict, forbidden, notFound } from '../kernel/errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import type { StaffRow } from '../store/schema.ts';
import type { StaffInviter } from './staff-invite.ts';
import { toStaffAuditEntry, toStaffMember, type StaffAuditEntry, type StaffMember } from './resource.ts';

/** Who acts: the signed-in staff member, and the request's correlation id. */
export interface StaffContext {
  staffId: string;
  correlationId: string;
}

const actor = (ctx: StaffContext) => ({ orgId: null, correlationId: ctx.correlationId, actor: { type: 'staff' as const, id: ctx.staffId } });

export function createStaffAdminService(deps: { db: Db; clock: () => Date; invalidate: Invalidate; invite: StaffInviter; mailConfigured: boolean }) {
  const { db } = deps;

  /** The live staff member another one acts on: never oneself (`refuseSelf` says why). */
  async function other(ctx: StaffContext, staffId: string, refuseSelf: string): Promise<StaffRow> {
    if (staffId.toLowerCase() === ctx.staffId.toLowerCase()) throw forbidden(refuseSelf);
    const row = await staffRepo.find(db, staffId);
    if (!row || row.deleted_at) throw notFound('Staff member');
    return row;
  }

  return {
    async list(filter: { status?: StaffStatus | undefined }, page: PageRequest): Promise<Page<StaffMember>> {
      const rows = await staffRepo.list(db, filter, decodeCursor(page.cursor), page.limit);
      return toPage(
        rows,
        page.limit,
        (r) => String(r.seq),
        (r) => toStaffMember(r),
      );
    },

    /**
     * A new staff member without a password: they choose one through their invitation, mailed in
     * this transaction. Without SMTP_URL nothing is sent and the answer carries the link instead.
     */
    async invite(ctx: StaffContext, input: { email: string; name: string }): Promise<StaffMember> {
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await staffRepo.insertInvited(tx, { id: randomUUID(), email: input.email, name: input.name });
          const invitation = await deps.invite(tx, row);
          await recordAudit(tx, actor(ctx), { action: 'staff.invite', targetId: row.id, changes: ['email', 'name'] });
          return toStaffMember(row, deps.mailConfigured ? undefined : invitation.url);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('A staff member with this email exists already.', { field: 'body.email' });
        throw err;
      }
    },

    /** Disables another staff member and ends their sessions and tokens at once. */
    async disable(ctx: StaffContext, staffId: string): Promise<StaffMember> {
      const row = await other(ctx, staffId, 'You may not disable yourself: ask another staff member.');
      const disabled = await db.transaction().execute(async (tx) => {
        if (!(await staffRepo.disable(tx, row.id, deps.clock()))) throw notFound('Staff member');
        await oidcRepo.revokeAccount(tx, row.id);
        await recordAudit(tx, actor(ctx), { action: 'staff.disable', targetId: row.id, changes: ['status'] });
        return (await staffRepo.find(tx, row.id)) as StaffRow;
      });
      deps.invalidate.staffChanged(row.id);
      return toStaffMember(disabled);
    },

    /**
     * Removes another staff member's authenticator (a lost phone): their sessions end, and their
     * next sign-in enrols a new one, as the admin client requires TOTP.
     */
    async resetMfa(ctx: StaffContext, staffId: string): Promise<StaffMember> {
      const row = await other(ctx, staffId, 'You may not reset your own two-step verification: ask another staff member.');
      const reset = await db.transaction().execute(async (tx) => {
        const account = await accountsRepo.byId(tx, row.id);
        if (account?.kind !== 'staff') throw notFound('Staff member');
        await accountsRepo.disableTotp(tx, account);
        await oidcRepo.revokeAccount(tx, row.id);
        await recordAudit(tx, actor(ctx), { action: 'staff.mfa.reset', targetId: row.id, changes: ['mfaEnabled'] });
        return (await staffRepo.find(tx, row.id)) as StaffRow;
      });
      deps.invalidate.staffChanged(row.id);
      return toStaffMember(reset);
    },

    /** Every staff action, across orgs, newest first. */
    async audit(
      filter: { action?: string | undefined; actorId?: string | undefined; orgId?: string | undefined },
      page: PageRequest,
    ): Promise<Page<StaffAuditEntry>> {
      const rows = await auditRepo.listStaff(db, filter, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.id, toStaffAuditEntry);
    },
  };
}

export type StaffAdminService = ReturnType<typeof createStaffAdminService>;
