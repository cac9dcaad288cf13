import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { sortColumnOf, usersRepo, type UserFilter } from '../store/repositories/users.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { accountTokensRepo } from '../store/repositories/account-tokens.ts';
import type { OrgRole, UserRow, UserSort } from '../store/schema.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { decodeCursor, decodeKeyedCursor, encodeKeyedCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { conflict, notFound } from '../kernel/errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import * as policy from '../kernel/policy.ts';
import { enforce, type Access } from '../kernel/policy.ts';
import { scryptHasher, type PasswordHasher } from '../lib/passwords.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { toUser, type User } from './resource.ts';
import { statusChange } from './status.ts';
import { orgsRepo } from '../store/repositories/orgs.ts';
import { imagesRepo } from '../store/repositories/images.ts';
import { badRequest } from '../kernel/errors.ts';
import { mergeLinks } from '../lib/profile.ts';
import { checkAttributes, mergeAttributes } from './attributes.ts';
import type { ReleasePhoto } from '../images/module.ts';

/** The org's rules for profiles: which fields members edit, which custom fields exist. */
async function profileRules(db: Db, orgId: string) {
  const org = await orgsRepo.find(db, orgId);
  if (!org) throw notFound('Organisation');
  const selfService: policy.SelfService = {
    fields: org.self_service_fields,
    attributes: new Set(org.fields.filter((f) => f.selfService).map((f) => f.key)),
    defined: new Set(org.fields.map((f) => f.key)),
  };
  return { fields: org.fields, selfService };
}

/**
 * A photo must be one of the org's live images. In the write's transaction, the image's row is held
 * until it commits: an admin's delete of the image waits, then sees this photo and refuses.
 */
async function checkPhoto(tx: Db, orgId: string, imageId: string | null | undefined): Promise<void> {
  if (!imageId) return;
  if (!(await imagesRepo.findLocked(tx, orgId, imageId, 'share'))) {
    throw badRequest("body.photoImageId: not one of the organisation's images (upload one with POST …/users/{userId}/photo).", { field: 'body.photoImageId' });
  }
}

export interface UserProfile {
  name: string;
  title: string;
  department: string;
  phone: string;
  mobile: string;
  pronouns?: string | undefined;
  website?: string | undefined;
  address?: string | undefined;
}

/** A change of links or custom values: merged, a key set to null (or "") removed. */
type KeyedPatch = Record<string, string | null | undefined>;

export type UserPatch = Partial<UserProfile> & {
  email?: string | undefined;
  status?: 'active' | 'suspended' | undefined;
  role?: OrgRole | undefined;
  temporaryPassword?: string | undefined;
  photoImageId?: string | null | undefined;
  social?: KeyedPatch | undefined;
  attributes?: Record<string, string | null> | undefined;
};

export type UserCreate = UserProfile & {
  email: string;
  role: OrgRole;
  temporaryPassword?: string | undefined;
  social?: KeyedPatch | undefined;
  attributes?: Record<string, string | null> | undefined;
};

/** Runs before a user is created or restored, inside its transaction (the seat cap lives here). */
export type SeatCheck = (tx: Db, orgId: string) => Promise<void>;

/** Invites a user in the creating transaction (src/people/service.ts): a link, and its mail. */
export type Invite = (tx: Db, user: UserRow) => Promise<{ url: string; expiresAt: Date; jobId: string | undefined }>;

/**
 * A live user's address is unique across the stage (docs/api.md, "People getting in"): the per-org
 * index or the stage-wide one refuses a second live user with it.
 */
const EMAIL_INDEXES = ['users_org_email_live', 'users_email_live'];
const isEmailTaken = (err: unknown) => EMAIL_INDEXES.some((index) => isUniqueViolation(err, index));
const emailTaken = (email: string) => conflict(`The email address ${email} already belongs to a user, in this or another organisation.`, { field: 'email' });

export function createUserService(deps: {
  db: Db;
  invalidate: Invalidate;
  seatCheck?: SeatCheck;
  passwords?: PasswordHasher;
  invite?: Invite;
  /**
   * Deletes a photo let go of, when it was stored as a photo and nothing else shows it: a member
   * uploading photo after photo would otherwise fill the org's 500 images and 50 MB.
   */
  releasePhoto?: ReleasePhoto;
}) {
  const { db, invalidate } = deps;
  const passwords = deps.passwords ?? scryptHasher;
  return {
    async get(orgId: string, userId: string): Promise<User> {
      const user = await usersRepo.find(db, orgId, userId);
      if (!user) throw notFound('User');
      return toUser(user);
    },

    async list(orgId: string, page: PageRequest, filter: UserFilter = {}, sort: UserSort = 'created'): Promise<Page<User>> {
      // A column order pages by (its key, seq); the default one by seq alone, as every other list.
      if (sortColumnOf(sort) === undefined) {
        const seq = decodeCursor(page.cursor);
        const rows = await usersRepo.list(db, orgId, filter, sort, seq === undefined ? undefined : { seq }, page.limit);
        return toPage(
          rows,
          page.limit,
          (r) => r.seq,
          (r) => toUser(r),
        );
      }
      const rows = await usersRepo.list(db, orgId, filter, sort, decodeKeyedCursor(page.cursor), page.limit);
      const more = rows.length > page.limit;
      const items = more ? rows.slice(0, page.limit) : rows;
      const last = items.at(-1);
      return { items: items.map((u) => toUser(u)), nextCursor: more && last ? encodeKeyedCursor({ key: last.sort_key ?? '', seq: last.seq }) : null };
    },

    /** The live user with this email, if any (the import creates or updates by email). */
    async findByEmail(orgId: string, email: string): Promise<User | undefined> {
      const user = await usersRepo.findByEmail(db, orgId, email);
      return user && toUser(user);
    },

    async create(access: Access, ctx: WriteContext, { temporaryPassword, social, attributes, ...input }: UserCreate): Promise<User> {
      const decision = policy.createUser(access, input.role);
      enforce(decision);
      if (attributes) checkAttributes((await profileRules(db, ctx.orgId)).fields, attributes);
      const passwordHash = temporaryPassword ? await passwords.hash(temporaryPassword) : null;
      try {
        const created = await db.transaction().execute(async (tx) => {
          await deps.seatCheck?.(tx, ctx.orgId);
          // Without a temporary password the user is invited (and takes a seat meanwhile).
          const row = await usersRepo.insert(tx, {
            id: randomUUID(),
            org_id: ctx.orgId,
            password_hash: passwordHash,
            password_must_change: temporaryPassword !== undefined,
            status: passwordHash ? 'active' : 'invited',
            ...input,
            ...(social ? { social: JSON.stringify(mergeLinks({}, social)) } : {}),
            ...(attributes ? { attributes: JSON.stringify(mergeAttributes({}, attributes)) } : {}),
          });
          const invitation = passwordHash || !deps.invite ? undefined : await deps.invite(tx, row);
          await recordAudit(tx, ctx, {
            action: 'user.create',
            targetId: row.id,
            changes: changedFields({ ...input, social, attributes, password: temporaryPassword }),
          });
          // The link is shown to the admin only when no mail carries it (no SMTP_URL).
          return toUser(row, invitation && !invitation.jobId ? invitation.url : undefined);
        });
        invalidate.userChanged(ctx.orgId, created.userId);
        return created;
      } catch (err) {
        if (isEmailTaken(err)) throw emailTaken(input.email);
        throw err;
      }
    },

    async update(access: Access, ctx: WriteContext, userId: string, check: VersionCheck, patch: UserPatch): Promise<User> {
      const target = await usersRepo.find(db, ctx.orgId, userId);
      if (!target) throw notFound('User');
      const rules = await profileRules(db, ctx.orgId);
      const decision = policy.updateUser(access, target, patch, rules.selfService);
      enforce(decision);
      if (patch.attributes) checkAttributes(rules.fields, patch.attributes);
      try {
        const { temporaryPassword, status, social, attributes, photoImageId, ...fields } = patch;
        const passwordHash = temporaryPassword ? await passwords.hash(temporaryPassword) : undefined;
        // A password given to a suspended user leaves them suspended; restoring is asked for apart.
        const change = status ? statusChange({ ...target, password_hash: passwordHash ?? target.password_hash }, status) : undefined;
        const nextStatus = change?.status ?? (passwordHash && target.status !== 'suspended' ? ('active' as const) : undefined);
        const user = await db.transaction().execute(async (tx) => {
          // Restoring takes a seat again: past the cap it is 402 and nothing changes.
          if (change?.restores) await deps.seatCheck?.(tx, ctx.orgId);
          await checkPhoto(tx, ctx.orgId, photoImageId);
          // Conditional on the version: the row the policy judged is the row that changes.
          const emailChanges = fields.email !== undefined && fields.email.toLowerCase() !== target.email.toLowerCase();
          const updated = await usersRepo.update(tx, ctx.orgId, userId, check, {
            ...fields,
            // Merged into the row the version check names: a concurrent change makes this a 409.
            ...(social ? { social: JSON.stringify(mergeLinks(target.social, social)) } : {}),
            ...(attributes ? { attributes: JSON.stringify(mergeAttributes(target.attributes, attributes)) } : {}),
            // A person's choice (a photo, or none): a directory sync leaves it alone from then on.
            ...(photoImageId !== undefined ? { photo_image_id: photoImageId, photo_source: 'person' as const } : {}),
            // A new address is not proved until a link sent to it is used.
            ...(emailChanges ? { email_verified: false } : {}),
            ...(passwordHash ? { password_hash: passwordHash, password_must_change: true, failed_logins: 0, locked_until: null } : {}),
            ...(nextStatus ? { status: nextStatus } : {}),
          });
          if (!updated) throw versionMismatch('User', await usersRepo.find(tx, ctx.orgId, userId), check);
          // An invited user whose address changed is invited again, at the new address (the old link dies).
          if (emailChanges && updated.status === 'invited' && deps.invite) await deps.invite(tx, updated);
          // A password given by an admin replaces the invitation.
          if (passwordHash) await accountTokensRepo.voidLive(tx, userId, 'invitation');
          await recordAudit(tx, ctx, {
            action: 'user.update',
            targetId: userId,
            changes: changedFields({ ...fields, social, attributes, photoImageId, password: temporaryPassword, status: change?.status }),
          });
          // A password set by an admin, or a suspension, ends the user's sessions and refresh tokens.
          if (passwordHash || change?.suspends) await oidcRepo.revokeAccount(tx, userId);
          return updated;
        });
        invalidate.userChanged(ctx.orgId, userId);
        if (photoImageId !== undefined && target.photo_image_id !== photoImageId) await deps.releasePhoto?.(ctx, target.photo_image_id);
        return toUser(user);
      } catch (err) {
        if (isEmailTaken(err)) throw emailTaken(patch.email ?? '');
        throw err;
      }
    },

    /** Refuses (403/404) before a photo is stored when the caller may not change this user's photo. */
    async checkPhotoEdit(access: Access, orgId: string, userId: string): Promise<UserRow> {
      const target = await usersRepo.find(db, orgId, userId);
      if (!target) throw notFound('User');
      const rules = await profileRules(db, orgId);
      enforce(policy.updateUser(access, target, { photoImageId: null }, rules.selfService));
      return target;
    },

    /**
     * Sets (an uploaded image of the org's) or clears the photo; `If-Match`, when sent, must be
     * current. A photo just uploaded that does not become the user's (a stale If-Match, a
     * concurrent change) is deleted: repeated refused uploads would otherwise fill the org's images.
     */
    async setPhoto(access: Access, ctx: WriteContext, userId: string, imageId: string | null, ifMatch: number | undefined): Promise<User> {
      try {
        const target = await this.checkPhotoEdit(access, ctx.orgId, userId);
        return await this.update(access, ctx, userId, { version: target.version, ifMatch }, { photoImageId: imageId });
      } catch (err) {
        await deps.releasePhoto?.(ctx, imageId);
        throw err;
      }
    },

    async remove(access: Access, ctx: WriteContext, userId: string): Promise<void> {
      const target = await usersRepo.find(db, ctx.orgId, userId);
      if (!target) throw notFound('User');
      const decision = policy.deleteUser(access, target);
      enforce(decision);
      await db.transaction().execute(async (tx) => {
        const deleted = await usersRepo.softDelete(tx, ctx.orgId, userId);
        if (!deleted) throw notFound('User');
        await recordAudit(tx, ctx, { action: 'user.delete', targetId: userId, changes: ['deletedAt'] });
        // A deleted user's sessions and refresh tokens end with them.
        await oidcRepo.revokeAccount(tx, userId);
      });
      invalidate.userChanged(ctx.orgId, userId);
      // A deleted user's photo shows nowhere any more (only live users' photos count as uses).
      await deps.releasePhoto?.(ctx, target.photo_image_id);
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
