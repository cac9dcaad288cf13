// People getting in (docs/api.md, "People getting in"): invitations, password reset by mail, changing
// one's own password. Links are one-time tokens (src/store/repositories/account-tokens.ts, only a
// hash kept); their mails go through the job queue in the transaction that makes the link.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import type { AccountTokenRow, TokenPurpose, UserRow } from '../store/schema.ts';
import { accountTokensRepo } from '../store/repositories/account-tokens.ts';
import { accountsRepo, type Account } from '../store/repositories/accounts.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { orgsRepo } from '../store/repositories/orgs.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { badRequest, conflict, forbidden, notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { enforce, manageInvitation, type Access } from '../kernel/policy.ts';
import { MIN_PASSWORD_LENGTH, type PasswordHasher } from '../lib/passwords.ts';
import type { SignIn } from '../idp/module.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import type { Mail } from '../mail/module.ts';
import { passwordResetMail, takeResend } from '../mail/module.ts';
import { enqueue } from '../jobs/queue.ts';

import { createInviter, hashOf, newToken, TOKEN_SHAPE, type Invitation } from './invite.ts';
import type { Clock } from '../lib/clock.ts';

export { TOKEN_SHAPE, type Invitation };
export const MAX_PASSWORD_LENGTH = 1024;

/** The job that looks up the address of a "Forgot your password?" and, when it is a user's, mails a link. */
export const RESET_REQUEST_JOB = 'people.reset-request';

export type LinkProblem = 'malformed' | 'unknown' | 'expired' | 'used' | 'voided';

/** Why a password cannot be used, or undefined (the rules of the sign-in's new-password step). */
export function passwordProblem(password: string, confirm: string | undefined): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password may have at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (confirm !== undefined && confirm !== password) return 'The two passwords differ.';
  return undefined;
}

export function createPeopleService(deps: {
  db: Db;
  logger: Logger;
  mail: Pick<Mail, 'configured' | 'queue'>;
  passwords: PasswordHasher;
  signIn: Pick<SignIn, 'checkCurrent'>;
  invalidate: Invalidate;
  authUrl: string;
  invitationTtlS: number;
  passwordResetTtlS: number;
  resetMailsPerAddressPerHour: number;
  clock: Clock;
}) {
  const { db, mail, invalidate } = deps;

  const inviteInTx = createInviter({ mail, authUrl: deps.authUrl, invitationTtlS: deps.invitationTtlS });

  /** The live link behind a token, or why there is none. */
  async function inspect(token: string, purpose: TokenPurpose): Promise<{ link: AccountTokenRow; account: Account; orgName: string } | LinkProblem> {
    if (!TOKEN_SHAPE.test(token)) return 'malformed';
    const link = await accountTokensRepo.findByHash(db, hashOf(token));
    if (!link || link.purpose !== purpose) return 'unknown';
    if (link.used_at) return 'used';
    if (link.voided_at) return 'voided';
    if (link.expires_at <= deps.clock()) return 'expired';
    const account = await accountsRepo.byId(db, link.account_id);
    // A deleted account, or one whose address changed since: the link went to someone else.
    if (!account || account.email.toLowerCase() !== link.email.toLowerCase()) return 'voided';
    const org = account.orgId ? await orgsRepo.find(db, account.orgId) : undefined;
    return { link, account, orgName: org?.name ?? '' };
  }

  /**
   * Sets the password a link's page chose: the link is used (once), the address proved, the account
   * active and unlocked; a reset also ends every session and refresh token of the account.
   */
  async function redeem(
    token: string,
    purpose: TokenPurpose,
    password: string,
    confirm: string,
  ): Promise<{ account: Account } | { problem: LinkProblem } | { error: string }> {
    const found = await inspect(token, purpose);
    if (typeof found === 'string') return { problem: found };
    const error = passwordProblem(password, confirm);
    if (error) return { error };
    const hash = await deps.passwords.hash(password);
    const { account } = found;
    const outcome = await db.transaction().execute(async (tx) => {
      const used = await accountTokensRepo.use(tx, found.link.id);
      if (!used) return undefined;
      await accountTokensRepo.voidLive(tx, account.id, purpose);
      await accountsRepo.setPassword(tx, account, hash, false, { verified: true });
      // Every other way in ends: sessions, grants, refresh tokens (a reset is often a takeover's cure).
      await oidcRepo.revokeAccount(tx, account.id);
      if (account.orgId) {
        await recordAudit(
          tx,
          { orgId: account.orgId, correlationId: null, actor: { type: 'user', id: account.id } },
          {
            action: purpose === 'invitation' ? 'user.invitation.accept' : 'user.password.reset',
            targetId: account.id,
            changes: ['password', 'emailVerified', 'status'],
          },
        );
      }
      return (await accountsRepo.byId(tx, account.id)) as Account;
    });
    if (!outcome) return { problem: 'used' };
    if (account.orgId) invalidate.userChanged(account.orgId, account.id);
    else invalidate.staffChanged(account.id);
    return { account: outcome };
  }

  return {
    inviteInTx,
    inspect,

    /** POST …/users/{userId}/invitation: a new link (the old one stops working) and its mail. */
    async resend(access: Access, ctx: WriteContext, userId: string): Promise<{ user: UserRow; invitation: Invitation }> {
      const result = await db.transaction().execute(async (tx) => {
        const user = await usersRepo.find(tx, ctx.orgId, userId);
        if (!user) throw notFound('User');
        enforce(manageInvitation(access, user));
        if (user.status !== 'invited') throw conflict('This user has already accepted an invitation (status active).', { field: 'status' });
        await takeResend(tx, userId, deps.clock());
        const invitation = await inviteInTx(tx, user);
        await recordAudit(tx, ctx, { action: 'user.invite', targetId: userId, changes: ['invitation'] });
        return { user, invitation };
      });
      return result;
    },

    /** Live invitation links of invited users, for admins, when mail does not carry them. */
    async invitationLinks(access: Access, users: Pick<UserRow, 'id' | 'status' | 'role'>[]): Promise<Map<string, string>> {
      if (mail.configured) return new Map();
      const invited = users.filter((u) => u.status === 'invited' && manageInvitation(access, u).allowed).map((u) => u.id);
      const orgId = access.orgId;
      const tokens = await accountTokensRepo.liveInvitationLinks(db, orgId, invited);
      return new Map([...tokens].map(([id, token]) => [id, `${deps.authUrl}/invitation/${token}`]));
    },

    accept: (token: string, password: string, confirm: string) => redeem(token, 'invitation', password, confirm),
    reset: (token: string, password: string, confirm: string) => redeem(token, 'password_reset', password, confirm),

    /**
     * "Forgot your password?" as the page asks it: a job of the durable queue that runs
     * `requestReset`. Queuing costs the same whatever the address, and the lookup runs on the
     * worker's turn, not the next request's: no request leaves work behind on the event loop.
     * Without mail there is nothing to send, and nothing is queued.
     */
    async askReset(email: string): Promise<void> {
      if (!mail.configured) return;
      await enqueue(db, { kind: RESET_REQUEST_JOB, orgId: null, payload: { email } });
    },

    /**
     * A reset link by mail to a live user with this address, at most RESET_MAILS_PER_ADDRESS_PER_HOUR
     * an hour. Answers nothing: the page says the same whatever happens here.
     */
    async requestReset(email: string): Promise<void> {
      if (!mail.configured) return;
      const [account] = await accountsRepo.byEmail(db, 'user', email);
      if (!account?.orgId) return;
      const recent = await accountTokensRepo.countRecent(db, account.id, 'password_reset', 3600);
      if (recent >= deps.resetMailsPerAddressPerHour) {
        deps.logger.warn({ accountId: account.id }, 'password reset refused: too many for this address within an hour');
        return;
      }
      const orgId = account.orgId;
      await db.transaction().execute(async (tx) => {
        await accountTokensRepo.voidLive(tx, account.id, 'password_reset');
        const token = newToken();
        await accountTokensRepo.insert(tx, {
          purpose: 'password_reset',
          accountKind: 'user',
          accountId: account.id,
          orgId,
          email: account.email,
          tokenHash: hashOf(token),
          linkToken: null,
          ttlS: deps.passwordResetTtlS,
        });
        const org = await orgsRepo.find(tx, orgId);
        const url = `${deps.authUrl}/reset-password/${token}`;
        await mail.queue(tx, orgId, account.email, passwordResetMail({ orgName: org?.name ?? null, name: account.name, url, ttlS: deps.passwordResetTtlS }));
      });
    },

    /**
     * POST …/users/{userId}/password: a signed-in user changes their own password. A wrong current
     * password counts against the account like a wrong sign-in; the change ends every session and
     * refresh token of the account (the caller signs in again when its ID token expires).
     */
    async changeOwnPassword(access: Access, ctx: WriteContext, userId: string, input: { currentPassword: string; newPassword: string }): Promise<void> {
      const user = await usersRepo.find(db, ctx.orgId, userId);
      if (!user) throw notFound('User');
      if (access.principal.kind !== 'user' || access.userId !== userId) {
        throw forbidden('Only the user themselves may change their password, signed in with their own ID token.');
      }
      const problem = passwordProblem(input.newPassword, undefined);
      if (problem) throw badRequest(`body.newPassword: ${problem}`, { field: 'newPassword' });
      const current = await deps.signIn.checkCurrent(userId, input.currentPassword);
      if (current === 'locked') throw forbidden('The account is locked after too many wrong passwords; try again later or reset the password.');
      if (current === 'wrong') throw badRequest('body.currentPassword: is not the current password', { field: 'currentPassword' });
      if (input.newPassword === input.currentPassword) {
        throw badRequest('body.newPassword: must differ from the current password', { field: 'newPassword' });
      }
      const hash = await deps.passwords.hash(input.newPassword);
      await db.transaction().execute(async (tx) => {
        const account = await accountsRepo.byId(tx, userId);
        if (!account) throw notFound('User');
        await accountsRepo.setPassword(tx, account, hash, false);
        await oidcRepo.revokeAccount(tx, userId);
        await recordAudit(tx, ctx, { action: 'user.password.change', targetId: userId, changes: ['password'] });
      });
      invalidate.userChanged(ctx.orgId, userId);
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;

/** What a link's page says when the link cannot be used. */
export function linkProblemText(problem: LinkProblem, purpose: TokenPurpose): { status: number; message: string } {
  const what = purpose === 'invitation' ? 'invitation link' : 'password-reset link';
  const ask =
    purpose === 'invitation' ? 'Ask your administrator to send a new invitation.' : 'Ask for a new one from the sign-in page ("Forgot your password?").';
  switch (problem) {
    case 'malformed':
      return { status: 400, message: `This is not a valid ${what}: check that the whole address was copied from the mail.` };
    case 'unknown':
      return { status: 404, message: `This ${what} is not known. ${ask}` };
    case 'expired':
      return { status: 410, message: `This ${what} has expired. ${ask}` };
    case 'used':
      return {
        status: 410,
        message: `This ${what} has already been used. Sign in with your password, or ${purpose === 'invitation' ? 'use "Forgot your password?" on the sign-in page' : 'ask for a new link'}.`,
      };
    case 'voided':
      return { status: 410, message: `This ${what} no longer works: a newer one was sent, or the account changed. ${ask}` };
  }
}
