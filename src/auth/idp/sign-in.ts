// The sign-in steps behind the identity provider's pages: password, new password, TOTP, enrolment.
// Brute force: 5 failures in a row lock an account for 15 minutes; answers never say whether an
// account exists (a missing account costs the same password hash as a present one).
import type { Db } from '../../store/db.ts';
import { accountsRepo, type Account, type AccountKind } from '../../store/repositories/accounts.ts';
import { oidcRepo } from '../../store/repositories/oidc.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from '../passwords.ts';
import { checkTotp, newTotpSecret, otpauthUri } from '../totp.ts';
import type { Invalidate } from '../../cache/namespaces.ts';

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MINUTES = 15;

export type NextStep = 'done' | 'otp' | 'enrol' | 'new-password';

// A real hash of a random password: verifying against it costs what a real account costs.
const DUMMY_HASH = hashPassword(`dummy-${Math.random()}`);

export function createSignIn(deps: { db: Db; clock: () => Date; invalidate: Invalidate }) {
  const { db, clock } = deps;
  // A new password and TOTP switched on or off change the account as the API shows it (a user's
  // version and mfaEnabled). The counters written on each attempt (failures, lock, last TOTP
  // step, a pending enrolment) are read from the database only, never through a cache.
  const changed = (a: Account) => (a.orgId ? deps.invalidate.userChanged(a.orgId, a.id) : deps.invalidate.staffChanged(a.id));
  const locked = (a: Account) => a.lockedUntil !== null && a.lockedUntil > clock();
  const fail = (a: Account) =>
    accountsRepo.recordFailure(db, a, LOCK_AFTER_FAILURES, new Date(clock().getTime() + LOCK_MINUTES * 60_000));

  function nextStep(account: Account, mfaRequired: boolean): NextStep {
    if (account.passwordMustChange) return 'new-password';
    if (account.totpSecret) return 'otp';
    return mfaRequired ? 'enrol' : 'done';
  }

  return {
    nextStep,

    /** Checks a password for the accounts of one kind with this email. */
    async password(kind: AccountKind, email: string, password: string): Promise<Account | undefined> {
      const candidates = (await accountsRepo.byEmail(db, kind, email)).filter((a) => a.passwordHash);
      if (candidates.length === 0) {
        await verifyPassword(password, await DUMMY_HASH);
        return undefined;
      }
      // An email may belong to users of several orgs: the password decides which one signs in.
      for (const account of candidates) {
        if (locked(account)) continue;
        if (await verifyPassword(password, account.passwordHash as string)) {
          await accountsRepo.resetFailures(db, account);
          return account;
        }
        await fail(account);
      }
      return undefined;
    },

    async otp(accountId: string, code: string): Promise<Account | undefined> {
      const account = await accountsRepo.byId(db, accountId);
      if (!account?.totpSecret || locked(account)) return undefined;
      const step = checkTotp(account.totpSecret, code.trim(), account.totpLastStep, clock().getTime());
      if (step === undefined || !(await accountsRepo.useTotpStep(db, account, step))) {
        await fail(account);
        return undefined;
      }
      await accountsRepo.resetFailures(db, account);
      return account;
    },

    /**
     * The pending TOTP enrolment of an account (a secret until a code confirms it): the one in
     * progress, or a new one when there is none or `restart` asks for it.
     */
    async enrolment(accountId: string, opts: { restart?: boolean } = {}): Promise<{ secret: string; uri: string } | undefined> {
      const account = await accountsRepo.byId(db, accountId);
      if (!account) return undefined;
      let secret = opts.restart ? null : account.totpPendingSecret;
      if (!secret) {
        secret = newTotpSecret();
        await accountsRepo.setPendingTotp(db, account, secret);
      }
      return { secret, uri: otpauthUri(secret, account.email) };
    },

    /**
     * Confirms the pending enrolment with a current code. A caller that passes its own `tx` (to
     * audit in the same transaction) forgets the cached account once that commits.
     */
    async confirmEnrolment(accountId: string, code: string, tx?: Db): Promise<Account | undefined> {
      const account = await accountsRepo.byId(tx ?? db, accountId);
      if (!account?.totpPendingSecret) return undefined;
      const step = checkTotp(account.totpPendingSecret, code.trim(), null, clock().getTime());
      if (step === undefined) return undefined;
      await accountsRepo.confirmTotp(tx ?? db, account, step);
      if (!tx) changed(account);
      return accountsRepo.byId(tx ?? db, accountId);
    },

    /** Switches TOTP off; as with confirmEnrolment, a caller's `tx` makes forgetting the caller's job. */
    async disableTotp(accountId: string, tx?: Db): Promise<void> {
      const account = await accountsRepo.byId(tx ?? db, accountId);
      if (!account) return;
      await accountsRepo.disableTotp(tx ?? db, account);
      if (!tx) changed(account);
    },

    /** Sets a new password and ends every other session and token of the account. */
    async changePassword(accountId: string, password: string): Promise<Account | string> {
      if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
      const account = await accountsRepo.byId(db, accountId);
      if (!account) return 'The account no longer exists.';
      if (account.passwordHash && (await verifyPassword(password, account.passwordHash))) {
        return 'Choose a password different from the temporary one.';
      }
      const hash = await hashPassword(password);
      const updated = await db.transaction().execute(async (tx) => {
        await accountsRepo.setPassword(tx, account, hash, false);
        await oidcRepo.revokeAccount(tx, accountId);
        return (await accountsRepo.byId(tx, accountId)) as Account;
      });
      changed(updated);
      return updated;
    },
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
