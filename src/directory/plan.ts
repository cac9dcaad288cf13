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
// - Suspended entries, and linked users gone from the directory, are soft-deleted; the org's owner
//   never is (skipped `owner_kept`), so a directory cannot lock an org out. A directory that pushes
//   some of its users (SCIM) says its list is not complete: none is gone for not being in it.
import type { DirectorySource, OrgRole } from '../store/schema.ts';
import type { DirectoryProfile } from '../store/repositories/directory.ts';

/** One user as a directory describes them, already mapped to our fields. */
export interface DirectoryUser extends DirectoryProfile {
  /** The directory's own id of the user (Google's `id`, Entra's `id`). */
  externalId: string;
  /** False for a suspended (Google) or disabled (Entra) account: it is soft-deleted. */
  active: boolean;
}

export const PROFILE_FIELDS = ['email', 'name', 'title', 'department', 'phone', 'mobile'] as const satisfies readonly (keyof DirectoryProfile)[];
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** A live user of the org, as the planner needs it. */
export interface LocalUser extends DirectoryProfile {
  id: string;
  role: OrgRole;
  directory_source: DirectorySource | null;
  directory_id: string | null;
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
  /** The org's owner is never deleted by a sync. */
  | 'owner_kept';

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
  const remove = (user: LocalUser) =>
    user.role === 'owner'
      ? skips.push({ action: 'skip', email: user.email, userId: user.id, reason: 'owner_kept' })
      : deletes.push({ action: 'delete', userId: user.id, email: user.email });

  for (const entry of input.directory) {
    const email = lower(entry.email);
    if (seen.has(email)) {
      skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'duplicate' });
      continue;
    }
    seen.add(email);
    let user = linked.get(entry.externalId);
    if (!user) {
      const candidate = byEmail.get(email);
      if (candidate && candidate.directory_source !== null && candidate.directory_source !== source) {
        skips.push({ action: 'skip', email: entry.email, userId: candidate.id, reason: 'other_directory' });
        continue;
      }
      // A user linked to another id of this directory keeps it (the directory reuses addresses
      // only after deleting the old account, which the gone-user rule handles).
      if (candidate && !(candidate.directory_source === source && candidate.directory_id !== entry.externalId && listed.has(candidate.directory_id ?? ''))) {
        user = candidate;
      }
    }
    if (user) matched.add(user.id);
    if (!entry.active) {
      if (user) remove(user);
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
    if (fields.length > 0) updates.push({ action: 'update', userId: user.id, entry, fields });
  }
  if (input.complete !== false) for (const user of linked.values()) if (!matched.has(user.id)) remove(user);

  // Deletions free seats before creations take them.
  const created = withinSeats(creates, input.seats.limit - (input.seats.used - deletes.length), skips);
  const changes = [...deletes, ...updates, ...created, ...skips];
  return {
    changes,
    counts: { created: created.length, updated: updates.length, deleted: deletes.length, skipped: skips.length },
  };
}

/** The creations that fit in `free` seats, in the directory's order; the rest are skipped for the seat limit. */
function withinSeats(creates: DirectoryUser[], free: number, skips: PlannedChange[]): PlannedChange[] {
  const created: PlannedChange[] = [];
  for (const entry of creates) {
    if (free > 0) {
      created.push({ action: 'create', entry });
      free--;
    } else {
      skips.push({ action: 'skip', email: entry.email, userId: null, reason: 'seat_limit' });
    }
  }
  return created;
}
