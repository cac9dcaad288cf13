// The rules on roles (docs/guide.md, "People and roles"), as the Users page shows them before anyone tries (the API enforces
// the same ones in src/auth/policy.ts; a refusal still shows its message).
import type { Me } from '../../shared/app-context.tsx';
import type { Role, User } from '../../shared/api/types.ts';

export const OWNER_RULES = [
  'Admins add, edit and remove members and admins.',
  'Only an owner may make someone an owner, or change an owner’s role or email.',
  'Only an owner may remove an owner.',
  'An owner may not lower their own role: make someone else owner first, and let them change yours.',
];

const isOwner = (me: Me) => me.role === 'owner' || me.role === 'super-admin';

/** The roles this person may give. */
export function assignableRoles(me: Me): Role[] {
  return isOwner(me) ? ['member', 'admin', 'owner'] : ['member', 'admin'];
}

/** Why the role of `target` cannot be changed by `me`, or undefined when it can. */
export function roleLocked(me: Me, target: User): string | undefined {
  if (target.role === 'owner' && !isOwner(me)) return 'Only an owner may change an owner’s role.';
  if (target.role === 'owner' && target.userId === me.userId) return 'You may not lower your own role: make someone else owner first.';
  return undefined;
}

/** Why the email of `target` cannot be changed by `me`, or undefined when it can. */
export function emailLocked(me: Me, target: User): string | undefined {
  return target.role === 'owner' && !isOwner(me) ? 'Only an owner may change an owner’s email.' : undefined;
}

/** Why `me` cannot remove `target`, or undefined when they can. */
export function deleteLocked(me: Me, target: User): string | undefined {
  if (target.role === 'owner' && !isOwner(me)) return 'Only an owner may remove an owner.';
  return undefined;
}
