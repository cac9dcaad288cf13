// Sign-in state of the two kinds of account the identity provider knows: org users and staff.
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { OrgRole } from '../schema.ts';

export type AccountKind = 'user' | 'staff';

export interface Account {
  kind: AccountKind;
  id: string;
  orgId: string | null;
  role: OrgRole | 'super-admin';
  email: string;
  name: string;
  passwordHash: string | null;
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  passwordMustChange: boolean;
  failedLogins: number;
  lockedUntil: Date | null;
  /** The account proved its address (an invitation accepted, a reset by mail); false again when it changes. */
  emailVerified: boolean;
  /** Users: `invited` until they have a password (suspended users are never found). Staff: always `active`. */
  status: 'invited' | 'active' | 'suspended';
}

const table = (kind: AccountKind) => (kind === 'user' ? 'users' : 'staff') as 'users';

/**
 * What a change visible in the user resource also sets: a new version (the API's optimistic
 * concurrency) and updated_at. Staff rows have neither.
 */
const userVisible = (account: Account, set: Record<string, unknown>): Record<string, unknown> =>
  account.kind === 'user' ? { ...set, version: sql`version + 1`, updated_at: sql`now()` } : set;

function fromUser(r: Record<string, any>): Account {
  return {
    kind: 'user',
    id: r.id,
    orgId: r.org_id,
    role: r.role,
    email: r.email,
    name: r.name,
    passwordHash: r.password_hash,
    totpSecret: r.totp_secret,
    totpPendingSecret: r.totp_pending_secret,
    totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
    passwordMustChange: r.password_must_change,
    failedLogins: r.failed_logins,
    lockedUntil: r.locked_until,
    emailVerified: r.email_verified ?? false,
    status: r.status ?? 'active',
  };
}

function fromStaff(r: Record<string, any>): Account {
  return { ...fromUser({ ...r, org_id: null, role: 'super-admin', password_must_change: false, status: 'active' }), kind: 'staff' };
}

export const accountsRepo = {
  // A suspended user (src/users/status.ts) is no account: not found, they cannot sign in, reset a
  // password or accept an invitation, and their sessions, refresh and ID tokens find no one.
  async byEmail(db: Db, kind: AccountKind, email: string): Promise<Account[]> {
    let query = db.selectFrom(table(kind)).selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).where('deleted_at', 'is', null);
    if (kind === 'user') query = query.where('status', '<>', 'suspended');
    const rows = await query.orderBy('created_at').execute();
    return rows.map(kind === 'user' ? fromUser : fromStaff);
  },

  async byId(db: Db, id: string): Promise<Account | undefined> {
    const user = await db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('status', '<>', 'suspended')
      .executeTakeFirst();
    if (user) return fromUser(user);
    const staff = await db.selectFrom('staff').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    return staff ? fromStaff(staff) : undefined;
  },

  /**
   * Counts a failed attempt (a wrong password or TOTP code) in the account's window: a failure after
   * the window (`windowStart`) starts a new one; the `lockAfter`-th within it locks the account
   * until `lockUntil`. One statement, so concurrent failures all count.
   */
  async recordFailure(db: Db, account: Account, f: { now: Date; windowStart: Date; lockAfter: number; lockUntil: Date }): Promise<void> {
    const fresh = sql<boolean>`(failures_since is null or failures_since <= ${f.windowStart.toISOString()}::timestamptz)`;
    const count = sql<number>`case when ${fresh} then 1 else failed_logins + 1 end`;
    await db
      .updateTable(table(account.kind))
      .set({
        failed_logins: count,
        failures_since: sql`case when ${fresh} then ${f.now.toISOString()}::timestamptz else failures_since end`,
        locked_until: sql`case when ${count} >= ${f.lockAfter} then ${f.lockUntil.toISOString()}::timestamptz else locked_until end`,
      })
      .where('id', '=', account.id)
      .execute();
  },

  async resetFailures(db: Db, account: Account): Promise<void> {
    await db.updateTable(table(account.kind)).set({ failed_logins: 0, failures_since: null, locked_until: null }).where('id', '=', account.id).execute();
  },

  /** Remembers the step a TOTP code used, only if it is newer (a code is accepted once). */
  async useTotpStep(db: Db, account: Account, step: number): Promise<boolean> {
    const result = await db
      .updateTable(table(account.kind))
      .set({ totp_last_step: String(step) })
      .where('id', '=', account.id)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async setPendingTotp(db: Db, account: Account, secret: string | null): Promise<void> {
    await db.updateTable(table(account.kind)).set({ totp_pending_secret: secret }).where('id', '=', account.id).execute();
  },

  /** Confirms enrolment: the pending secret becomes the secret. */
  async confirmTotp(db: Db, account: Account, step: number): Promise<void> {
    const set = { totp_secret: sql`totp_pending_secret`, totp_pending_secret: null, totp_last_step: String(step) };
    await db
      .updateTable(table(account.kind))
      .set(userVisible(account, account.kind === 'user' ? { ...set, mfa_enabled: true } : set))
      .where('id', '=', account.id)
      .execute();
  },

  async disableTotp(db: Db, account: Account): Promise<void> {
    const set = { totp_secret: null, totp_pending_secret: null, totp_last_step: null };
    await db
      .updateTable(table(account.kind))
      .set(userVisible(account, account.kind === 'user' ? { ...set, mfa_enabled: false } : set))
      .where('id', '=', account.id)
      .execute();
  },

  /** A new password (a user who gets one is `active`); `verified`: it came through a link sent to the address. */
  async setPassword(db: Db, account: Account, hash: string, mustChange: boolean, opts: { verified?: boolean } = {}): Promise<void> {
    const set = { password_hash: hash, failed_logins: 0, failures_since: null, locked_until: null, ...(opts.verified ? { email_verified: true } : {}) };
    await db
      .updateTable(table(account.kind))
      .set(userVisible(account, account.kind === 'user' ? { ...set, password_must_change: mustChange, status: 'active' } : set))
      .where('id', '=', account.id)
      .execute();
  },

  async insertStaff(db: Db, staff: { id: string; email: string; password_hash: string }): Promise<void> {
    await db.insertInto('staff').values(staff).execute();
  },
};
