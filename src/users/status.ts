// The user status `suspended` (docs/api.md, "Suspended users"): set by an admin, a SCIM client
// (`active: false`) or a directory sync (a suspended or disabled account). A suspended user keeps
// their row, profile and groups but takes no seat (the seat count, 120_suspended_scim.sql), cannot
// sign in (src/store/repositories/accounts.ts finds no suspended account, so sessions, refresh and
// ID tokens stop), and gets no signature (the add-in answers 404, pushes skip them `suspended`).
import type { UserRow, UserStatus } from '../store/schema.ts';

/** The status a suspended user gets back: `active` with a password, else still `invited`. */
export const restoredStatus = (user: Pick<UserRow, 'password_hash'>): UserStatus => (user.password_hash ? 'active' : 'invited');

/**
 * The status a request for `active` or `suspended` leads to, and whether it takes a seat again
 * (the caller runs the seat check in the same transaction) or ends the user's sessions.
 */
export function statusChange(
  user: Pick<UserRow, 'password_hash' | 'status'>,
  wanted: 'active' | 'suspended',
): { status: UserStatus; restores: boolean; suspends: boolean } | undefined {
  if (wanted === 'suspended') return user.status === 'suspended' ? undefined : { status: 'suspended', restores: false, suspends: true };
  return user.status === 'suspended' ? { status: restoredStatus(user), restores: true, suspends: false } : undefined;
}
