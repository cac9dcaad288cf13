// What applying a directory's user list to an org would change, decided without touching anything:
// a pure function of the directory, the org's live users and its seats, so a dry run and the real
// run agree, and the rules are tested without a database.
//
// The rules (docs/google-workspace.md, "What the sync does"; docs/entra-sync.md):
// - A directory entry finds its user by the directory's id among the users this directory linked,
//   else by address among users no other directory linked (adopting them). Users it neither linked
//   nor matches by address are never touched.
// - New, active entries are created as members; past the seat cap, or when another org has the
//   address, they are skipped with that reason and the rest goes on.
// - Suspended (disabled) entries suspend their user (src/users/status.ts: an update of `status`);
//   an active entry restores a suspended user, taking a seat again. Linked users gone from the
//   directory are soft-deleted. The org's owner is never suspended or deleted (skipped
//   `owner_kept`), so a directory cannot lock an org out. A directory that pushes some of its users
//   (SCIM) says its list is not complete: none is gone for not being in it.
// - While SCIM is enabled it owns the users it created: a sync skips them (`scim`, docs/scim.md).
import type { DirectorySource, OrgRole, UserStatus } from '../store/schema.ts';
import type { DirectoryProfile } from '../store/repositories/directory.ts';

/** One user as a directory describes them, already mapped to our fields. */
export interface DirectoryUser extends DirectoryProfile {
  /** The directory's own id of the user (Google's `id`, Entra's `id`). */
  externalId: string;
  /** False for a suspended (Google) or disabled (Entra) account: its user is suspended. */
  active: boolean;
  /**
   * The mark of the user's photo when the listing carries it (Google's `thumbnailPhotoEtag`): null
   * for no photo. Undefined when only a request per user tells (Entra): photos.ts asks then.
   */
  photoEtag?: string | null | undefined;
}

export const PROFILE_FIELDS = ['email', 'name', 'title', 'department', 'phone', 'mobile'] as const satisfies readonly (keyof DirectoryProfile)[];
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** A live user of the org, as the planner needs it. */
export interface LocalUser extends DirectoryProfile {
  id: string;
  role: OrgRole;
  directory_source: DirectorySource | null;
  directory_id: string | null;
  status: UserStatus;
}

export type SkipReason =
  /** Every seat of the plan is taken. */
  | 'seat_limit'
  /** A live user of another org has the address (addresses are unique across the stage). */
  | 'email_in_other_org'
  /** Another user of this org already has the address. */
  | 'email_in_use'
  /** The directory lists the address twice; the first entry wins. */
  | 'duplicate'
  /** The user with this address was linked by another directory. */
  | 'other_directory'
  /** The org's owner is never suspended or deleted by a sync. */
  | 'owner_kept'
  /** SCIM is enabled and created (or adopted) the user: it, not this directory, keeps them. */
  | 'scim';

export type PlannedChange =
  | { action: 'create'; entry: DirectoryUser }
  | { action: 'update'; userId: string; entry: DirectoryUser; fields: string[] }
  | { action: 'delete'; userId: string; email: string }
  | { action: 'skip'; email: string; userId: string | null; reason: SkipReason };

export interface Plan {
  changes: PlannedChange[];
  counts: { created: number; updated: number; deleted: number; skipped: number };
}

const lower = (s: string) => s.trim().toLowerCase();

export function planDirectory(input: {
  source: DirectorySource;
  directory: DirectoryUser[];
  local: LocalUser[];
  /** Lower-cased addresses a live user of another org has. */
  takenElsewhere: ReadonlySet<string>;
  seats: { limit: number; used: number };
  /**
   * Whether `directory` is every user the directory has (a pulled directory, read whole): then the
   * users it linked and no longer lists are gone. False for users pushed a few at a time (SCIM).
   */
  complete?: boolean;
  /** Whether SCIM is enabled for the org: then the users SCIM linked are its own. */
  scimEnabled?: boolean;
}): Plan {
  const { source } = input;
  const linked = new Map<string, LocalUser>();
  const byEmail = new Map<string, LocalUser>();
  for (const u of input.local) {
    if (u.directory_source === source && u.directory_id) linked.set(u.directory_id, u);
    byEmail.set(lower(u.email), u);
  }
  const deletes: PlannedChange[] = [];
  const updates: PlannedChange[] = [];
  const creates: DirectoryUser[] = [];
  const skips: PlannedChange[] = [];
  const seen = new Set<string>();
  const listed = new Set(input.directory.filter((e) => e.active).map((e) => e.externalId));
  const matched = new Set<string>();
  // Deletions and suspensions of seat holders free seats; restores take them as creations do.
  let freed = 0;
  const remove = (user: LocalUser) => {
    if (user.role === 'owner') return skips.push({ action: 'skip', email: user.email, userId: user.id, reason: 'owner_kept' });
    if (user.status !== 'suspended') freed++;
    return deletes.push({ action: 'delete', userId: user.id, email: user.email });
  };
  const restores: PlannedChange[] = [];

  for (const entry of input.directory) {
    const email = lower(entry.email);
    if (seen.has(email)) {
      skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'duplicate' });
      continue;
    }
    seen.add(email);
    const found = localUserOf(entry, { source, linked, candidate: byEmail.get(email), listed, scimEnabled: input.scimEnabled === true });
    if (found.skip) {
      skips.push(found.skip);
      continue;
    }
    const { user } = found;
    if (user) matched.add(user.id);
    if (!entry.active) {
      if (!user || user.status === 'suspended') continue;
      if (user.role === 'owner') skips.push({ action: 'skip', email: user.email, userId: user.id, reason: 'owner_kept' });
      else {
        updates.push({ action: 'update', userId: user.id, entry, fields: ['status'] });
        freed++;
      }
      continue;
    }
    if (!user) {
      if (byEmail.has(email)) skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'email_in_use' });
      else if (input.takenElsewhere.has(email)) skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'email_in_other_org' });
      else creates.push(entry);
      continue;
    }
    const fields: string[] = PROFILE_FIELDS.filter((f) => (f === 'email' ? lower(user.email) !== email : user[f] !== entry[f]));
    if (fields.includes('email')) {
      const holder = byEmail.get(email);
      if (holder && holder.id !== user.id) {
        skips.push({ action: 'skip', email: entry.email, userId: user.id, reason: 'email_in_use' });
        continue;
      }
      if (input.takenElsewhere.has(email)) {
        skips.push({ action: 'skip', email: entry.email, userId: user.id, reason: 'email_in_other_org' });
        continue;
      }
    }
    const adopting = user.directory_source !== source || user.directory_id !== entry.externalId;
    if (adopting) fields.push('directory');
    if (user.status === 'suspended') restores.push({ action: 'update', userId: user.id, entry, fields: [...fields, 'status'] });
    else if (fields.length > 0) updates.push({ action: 'update', userId: user.id, entry, fields });
  }
  if (input.complete !== false) for (const user of linked.values()) if (!matched.has(user.id)) remove(user);

  // Deletions and suspensions free seats before restores and creations take them.
  const { restored, created } = withinSeats(restores, creates, input.seats.limit - (input.seats.used - freed), skips);
  updates.push(...restored);
  const changes = [...deletes, ...updates, ...created, ...skips];
  return {
    changes,
    counts: { created: created.length, updated: updates.length, deleted: deletes.length, skipped: skips.length },
  };
}

/**
 * The restores, then the creations, that fit in `free` seats, in the directory's order; the rest
 * are skipped for the seat limit.
 */
function withinSeats(
  restores: PlannedChange[],
  creates: DirectoryUser[],
  free: number,
  skips: PlannedChange[],
): { restored: PlannedChange[]; created: PlannedChange[] } {
  const restored: PlannedChange[] = [];
  for (const change of restores) {
    if (free > 0) {
      restored.push(change);
      free--;
    } else if (change.action === 'update') {
      skips.push({ action: 'skip', email: change.entry.email, userId: change.userId, reason: 'seat_limit' });
    }
  }
  const created: PlannedChange[] = [];
  for (const entry of creates) {
    if (free > 0) {
      created.push({ action: 'create', entry });
      free--;
    } else {
      skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'seat_limit' });
    }
  }
  return { restored, created };
}

/**
 * The local user a directory entry is: the one linked to its id, else the one with its address,
 * unless another directory (or SCIM, while enabled) owns that one.
 */
function localUserOf(
  entry: DirectoryUser,
  ctx: { source: DirectorySource; linked: Map<string, LocalUser>; candidate: LocalUser | undefined; listed: Set<string>; scimEnabled: boolean },
): { user: LocalUser | undefined; skip?: undefined } | { user?: undefined; skip: PlannedChange } {
  const user = ctx.linked.get(entry.externalId);
  if (user) return { user };
  const { candidate, source } = ctx;
  if (!candidate) return { user: undefined };
  if (candidate.directory_source === 'scim' && source !== 'scim' && ctx.scimEnabled) {
    return { skip: { action: 'skip', email: entry.email, userId: candidate.id, reason: 'scim' } };
  }
  // SCIM's users are free to adopt once SCIM is turned off.
  if (candidate.directory_source !== null && candidate.directory_source !== source && candidate.directory_source !== 'scim') {
    return { skip: { action: 'skip', email: entry.email, userId: candidate.id, reason: 'other_directory' } };
  }
  // A user linked to another id of this directory keeps it (the directory reuses addresses only
  // after deleting the old account, which the gone-user rule handles).
  const linkedElsewhere = candidate.directory_source === source && candidate.directory_id !== entry.externalId && ctx.listed.has(candidate.directory_id ?? '');
  return { user: linkedElsewhere ? undefined : candidate };
}
