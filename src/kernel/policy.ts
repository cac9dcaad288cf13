// The one authorization policy: every route asks it, for every kind of caller (docs/guide.md,
// "People and roles" and "Credentials").
// Pure functions return decisions; `enforce` turns a refusal into the 403 error, for the guards
// and the services that judge a decision against the row they are about to change.
import { forbidden } from './errors.ts';
import type { OrgRole, Principal } from './principal.ts';

/** The role a caller acts with inside an org: API keys act as `admin` (docs/guide.md, "Credentials"); staff as super-admin. */
export type EffectiveRole = OrgRole | 'super-admin';

const RANK: Record<EffectiveRole, number> = { member: 0, admin: 1, owner: 2, 'super-admin': 3 };

export type Action =
  | 'org.read'
  | 'org.update'
  | 'user.read'
  | 'user.create'
  | 'user.update'
  | 'user.delete'
  | 'template.read'
  | 'template.write'
  | 'rule.read'
  | 'campaign.read'
  | 'opens.read'
  | 'apiKey.manage'
  | 'audit.read'
  | 'image.read'
  | 'image.write'
  | 'render'
  | 'billing.read'
  | 'job.read'
  | 'user.invite'
  | 'integration.manage'
  | 'deployment.read'
  | 'webhook.manage';

const MINIMUM: Record<Action, OrgRole> = {
  'org.read': 'member',
  'org.update': 'admin',
  'user.read': 'member',
  'user.create': 'admin',
  // Members may update themselves; updateUser below narrows what they may touch.
  'user.update': 'member',
  'user.delete': 'admin',
  'template.read': 'member',
  'template.write': 'admin',
  // Who gets which template, and what campaigns run and how they do, are the admins' pages
  // (docs/api.md, "Rules" and "Campaigns"); a member reads their own signature, not the plan behind it.
  'rule.read': 'admin',
  'campaign.read': 'admin',
  // How often each colleague's mail is opened is the Overview's, an admin page (docs/web-apps.md).
  'opens.read': 'admin',
  'apiKey.manage': 'admin',
  'audit.read': 'admin',
  'image.read': 'member',
  'image.write': 'admin',
  render: 'member',
  'billing.read': 'member',
  'job.read': 'admin',
  'user.invite': 'admin',
  // Connecting a mailbox provider or a directory, and seeing where each user's signature stands.
  'integration.manage': 'admin',
  'deployment.read': 'admin',
  // Outbound webhook endpoints: their secrets sign what receivers trust.
  'webhook.manage': 'admin',
};

export type Decision = { allowed: true; role: EffectiveRole } | { allowed: false; reason: string; field?: string };

/** Turns a refusal of the policy into 403, naming the field when the decision names one. */
export function enforce(decision: Decision): asserts decision is Extract<Decision, { allowed: true }> {
  if (!decision.allowed) throw forbidden(decision.reason, decision.field ? { field: decision.field } : undefined);
}

/** What a caller may do in the org of the request, as the org guard established it. */
export interface Access {
  orgId: string;
  principal: Principal;
  role: EffectiveRole;
  /** The user id of the caller, when the caller is a user (members may act on themselves). */
  userId: string | undefined;
}

const deny = (reason: string, field?: string): Decision => ({ allowed: false, reason, ...(field ? { field } : {}) });

/** Cross-org access is refused for everyone but staff; then the action's minimum role applies. */
export function authorize(principal: Principal, orgId: string, action: Action): Decision {
  const role = roleIn(principal, orgId);
  if (!role) return deny('This credential belongs to another organisation.');
  if (RANK[role] < RANK[MINIMUM[action]]) return deny(`This action needs the ${MINIMUM[action]} role.`);
  return { allowed: true, role };
}

export function roleIn(principal: Principal, orgId: string): EffectiveRole | undefined {
  switch (principal.kind) {
    case 'staff':
      return 'super-admin';
    case 'apiKey':
      return principal.orgId === orgId ? 'admin' : undefined;
    case 'user':
      return principal.orgId === orgId ? principal.role : undefined;
  }
}

/** Fields only an admin (or above) may change on a user (docs/guide.md, "People and roles": `role`, `email`). */
export const ADMIN_ONLY_USER_FIELDS = ['role', 'email', 'temporaryPassword', 'status'] as const;

export function updateUser(
  actor: { role: EffectiveRole; userId?: string | undefined },
  target: { id: string; role: OrgRole },
  patch: { role?: OrgRole | undefined; email?: string | undefined; temporaryPassword?: string | undefined; [field: string]: unknown },
  selfService?: SelfService,
): Decision {
  const self = actor.userId === target.id;
  const isAdmin = RANK[actor.role] >= RANK.admin;
  if (!isAdmin) {
    if (!self) return deny('Members may only edit their own profile.');
    for (const field of ADMIN_ONLY_USER_FIELDS) {
      if (patch[field] !== undefined) return deny(`Only an admin may change ${field}.`, field);
    }
    if (selfService) return selfServiceEdit(actor.role, selfService, patch);
    return { allowed: true, role: actor.role };
  }
  const touchesAdminFields = patch.role !== undefined || patch.email !== undefined || patch.temporaryPassword !== undefined;
  const isOwnerOrAbove = RANK[actor.role] >= RANK.owner;
  if (patch.role === 'owner' && target.role !== 'owner' && !isOwnerOrAbove) {
    return deny('Only an owner may make another owner.', 'role');
  }
  if (target.role === 'owner' && touchesAdminFields && !isOwnerOrAbove) {
    const field = patch.role !== undefined ? 'role' : patch.email !== undefined ? 'email' : 'temporaryPassword';
    return deny("Only an owner may change an owner's role, email or password.", field);
  }
  if (self && target.role === 'owner' && patch.role !== undefined && patch.role !== 'owner') {
    return deny('The owner may not lower their own role.', 'role');
  }
  // Suspending an owner would lock the org out (a directory never does it either); no one suspends themselves.
  if (patch.status === 'suspended' && (target.role === 'owner' || self)) {
    return deny(self ? 'You may not suspend yourself.' : 'The owner may not be suspended.', 'status');
  }
  return { allowed: true, role: actor.role };
}

/** What the org lets members change on themselves: named user fields and custom fields (by key). */
export interface SelfService {
  fields: readonly string[];
  attributes: ReadonlySet<string>;
  /** Every custom field the org defined: a key outside them is bad input (400), not a refusal. */
  defined: ReadonlySet<string>;
}

/**
 * Who edits what (docs/api.md, "Who edits what"): a member changes only the fields of their own
 * profile that the org's `selfServiceFields` name, and the custom fields marked `selfService`.
 * Anything else, such as a title the directory keeps, is an admin's to change.
 */
function selfServiceEdit(role: EffectiveRole, allowed: SelfService, patch: Record<string, unknown>): Decision {
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (field === 'attributes') {
      for (const key of Object.keys(value as object)) {
        // A key the org never defined is no one's to set: the service answers 400 naming it.
        if (!allowed.defined.has(key)) continue;
        if (!allowed.attributes.has(key)) return deny(`Only an admin may change the custom field ${key}.`, `attributes.${key}`);
      }
    } else if (!allowed.fields.includes(field)) {
      return deny(`Only an admin may change ${field}: the organisation does not let members edit it (selfServiceFields).`, field);
    }
  }
  return { allowed: true, role };
}

export function deleteUser(actor: { role: EffectiveRole; userId?: string | undefined }, target: { id: string; role: OrgRole }): Decision {
  if (RANK[actor.role] < RANK.admin) return deny('Deleting users needs the admin role.');
  if (target.role === 'owner') {
    if (actor.userId === target.id) return deny('The owner may not delete themselves.');
    if (RANK[actor.role] < RANK.owner) return deny('Only an owner may delete an owner.');
  }
  return { allowed: true, role: actor.role };
}

/**
 * Who may send, or read, a user's invitation link: an admin; an owner's only an owner (the link
 * sets the password of the account it names, so reading it is taking that account over).
 */
export function manageInvitation(actor: { role: EffectiveRole }, target: { role: OrgRole }): Decision {
  if (RANK[actor.role] < RANK.admin) return deny('Invitations need the admin role.');
  if (target.role === 'owner' && RANK[actor.role] < RANK.owner) return deny("Only an owner may send or read an owner's invitation.");
  return { allowed: true, role: actor.role };
}

/** A user's rendered signature: the user themselves, or an admin. */
export function readSignature(actor: { role: EffectiveRole; userId?: string | undefined }, userId: string): Decision {
  if (actor.userId === userId || RANK[actor.role] >= RANK.admin) return { allowed: true, role: actor.role };
  return deny("Members may only read their own signature; an admin reads anyone's.");
}

/** Who may create a user with a given role. */
export function createUser(actor: { role: EffectiveRole }, role: OrgRole): Decision {
  if (RANK[actor.role] < RANK.admin) return deny('Creating users needs the admin role.');
  if (role === 'owner' && RANK[actor.role] < RANK.owner) return deny('Only an owner may make another owner.', 'role');
  return { allowed: true, role: actor.role };
}

/** TOTP: only the user enrols (the secret is shown to the caller); the user or an admin disables. */
export function manageMfa(
  actor: { role: EffectiveRole; userId?: string | undefined },
  target: { id: string; role: OrgRole },
  op: 'enrol' | 'disable',
): Decision {
  if (actor.userId === target.id) return { allowed: true, role: actor.role };
  if (op === 'enrol') return deny('Only the user may enrol their own authenticator.');
  if (RANK[actor.role] < RANK.admin) return deny('Members may only manage their own two-step verification.');
  if (target.role === 'owner' && RANK[actor.role] < RANK.owner) return deny("Only an owner may change an owner's two-step verification.");
  return { allowed: true, role: actor.role };
}
