// The sign-in steps behind the identity provider's pages: password, new password, TOTP, enrolment.
// This service owns their reads, writes and transactions; the pages (interactions.ts) only call it.
//
// Brute force: wrong passwords and wrong TOTP codes count against the account alike; 5 within 15
// minutes lock it for 15 minutes, across sign-ins. Only a finished sign-in clears the count: a right
// password alone does not when a TOTP code must follow, or a guesser who knows the password could
// reset the count between code guesses.
// Enumeration: every path through `password` costs one password hash per candidate account, or
// one of a dummy hash when there is none, so a locked or unknown account answers as slowly as a
// wrong password.
import type { Db } from '../store/db.ts';
import { accountsRepo, type Account, type AccountKind } from '../store/repositories/accounts.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { MIN_PASSWORD_LENGTH, scryptHasher, type PasswordHasher } from '../lib/passwords.ts';
import { checkTotp, newTotpSecret, otpauthUri } from './totp.ts';
import type { Invalidate } from '../cache/namespaces.ts';

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MINUTES = 15;
/** Failures older than this no longer count towards a lockout. */
export const FAILURE_WINDOW_MINUTES = 15;

export function createSignIn(deps: {
  db: Db;
  clock: () => Date;
  hasher?: PasswordHasher;
  /** The cache rules (src/cache/namespaces.ts): every write to an account forgets it. */
  invalidate: Invalidate;
}) {
  const { db, clock } = deps;
  const onAccountChange = (a: Account) => (a.orgId ? deps.invalidate.userChanged(a.orgId, a.id) : deps.invalidate.staffChanged(a.id));
  const hasher = deps.hasher ?? scryptHasher;
  // A real hash of a random password, made once on first use: verifying against it costs what a
  // real account costs.
  let dummyHash: Promise<string> | undefined;
  const dummy = () => (dummyHash ??= hasher.hash(`dummy-${crypto.randomUUID()}`));

  const locked = (a: Account) => a.lockedUntil !== null && a.lockedUntil > clock();

  async function fail(account: Account): Promise<void> {
    const now = clock();
    await accountsRepo.recordFailure(db, account, {
      now,
      windowStart: new Date(now.getTime() - FAILURE_WINDOW_MINUTES * 60_000),
      lockAfter: LOCK_AFTER_FAILURES,
      lockUntil: new Date(now.getTime() + LOCK_MINUTES * 60_000),
    });
    onAccountChange(account);
  }

  async function succeed(account: Account): Promise<void> {
    if (account.failedLogins === 0 && account.lockedUntil === null) return;
    await accountsRepo.resetFailures(db, account);
    onAccountChange(account);
  }

  return {
    account: (accountId: string) => accountsRepo.byId(db, accountId),

    /** Checks a password for the accounts of one kind with this email. */
    async password(kind: AccountKind, email: string, password: string): Promise<Account | undefined> {
      const candidates = (await accountsRepo.byEmail(db, kind, email)).filter((a) => a.passwordHash);
      if (candidates.length === 0) {
        await hasher.verify(password, await dummy());
        return undefined;
      }
      // An email may belong to users of several orgs: the password decides which one signs in.
      // A locked account is hashed too (then refused), so its answer takes as long as any other.
      for (const account of candidates) {
        const matches = await hasher.verify(password, account.passwordHash as string);
        if (locked(account)) continue;
        if (!matches) {
          await fail(account);
          continue;
        }
        if (!account.totpSecret) await succeed(account);
        return account;
      }
      return undefined;
    },

    /**
     * Checks the current password of a signed-in account (changing one's own password): a wrong one
     * counts against the account like a wrong sign-in, and a locked account is refused.
     */
    async checkCurrent(accountId: string, password: string): Promise<'ok' | 'wrong' | 'locked'> {
      const account = await accountsRepo.byId(db, accountId);
      if (!account?.passwordHash) {
        await hasher.verify(password, await dummy());
        return 'wrong';
      }
      const matches = await hasher.verify(password, account.passwordHash);
      if (locked(account)) return 'locked';
      if (!matches) {
        await fail(account);
        return 'wrong';
      }
      await succeed(account);
      return 'ok';
    },

    async otp(accountId: string, code: string): Promise<Account | undefined> {
      const account = await accountsRepo.byId(db, accountId);
      if (!account?.totpSecret || locked(account)) return undefined;
      const step = checkTotp(account.totpSecret, code.trim(), account.totpLastStep, clock().getTime());
      if (step === undefined || !(await accountsRepo.useTotpStep(db, account, step))) {
        await fail(account);
        return undefined;
      }
      await succeed(account);
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
        onAccountChange(account);
      }
      return { secret, uri: otpauthUri(secret, account.email) };
    },

    /**
     * Confirms the pending enrolment with a current code. A caller that passes its own `tx` (to
     * audit in the same transaction) forgets the cached account once that commits: forgotten
     * before the commit, a concurrent read could cache the old row again.
     */
    async confirmEnrolment(accountId: string, code: string, tx?: Db): Promise<Account | undefined> {
      const account = await accountsRepo.byId(tx ?? db, accountId);
      if (!account?.totpPendingSecret) return undefined;
      const step = checkTotp(account.totpPendingSecret, code.trim(), null, clock().getTime());
      if (step === undefined) return undefined;
      await accountsRepo.confirmTotp(tx ?? db, account, step);
      if (!tx) onAccountChange(account);
      return accountsRepo.byId(tx ?? db, accountId);
    },

    /** Switches TOTP off; as with confirmEnrolment, a caller's `tx` makes forgetting the caller's job. */
    async disableTotp(accountId: string, tx?: Db): Promise<void> {
      const account = await accountsRepo.byId(tx ?? db, accountId);
      if (!account) return;
      await accountsRepo.disableTotp(tx ?? db, account);
      if (!tx) onAccountChange(account);
    },

    /** Ends the grants of a session that signs out, with every code and token issued under them. */
    async endSession(grantIds: string[]): Promise<void> {
      await oidcRepo.revokeGrants(db, grantIds);
    },

    /** Sets a new password and ends every other session and token of the account. */
    async changePassword(accountId: string, password: string): Promise<Account | string> {
      if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
      const account = await accountsRepo.byId(db, accountId);
      if (!account) return 'The account no longer exists.';
      if (account.passwordHash && (await hasher.verify(password, account.passwordHash))) {
        return 'Choose a password different from the temporary one.';
      }
      const hash = await hasher.hash(password);
      const changed = await db.transaction().execute(async (tx) => {
        await accountsRepo.setPassword(tx, account, hash, false);
        await oidcRepo.revokeAccount(tx, accountId);
        return (await accountsRepo.byId(tx, accountId)) as Account;
      });
      onAccountChange(account);
      return changed;
    },
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
