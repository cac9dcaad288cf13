// SCIM 2.0 provisioning (docs/scim.md): the org's token, and the users and groups an identity
// provider (Okta, Entra ID) creates, reads, changes and removes. Users it creates are linked to
// SCIM (users.directory_source = 'scim', which a directory sync then leaves alone: directory/plan.ts)
// and get no invitation mail; `active: false` suspends (src/users/status.ts). Each write is one
// transaction with its audit entry, by the actor `system:scim`.
//
// Not through the directory's apply step (src/directory/service.ts): that plans by address and
// answers a skip, where SCIM names its user by our id (an address may change under it) and must
// answer 409 or 402 at once. The rules it shares are the same functions: the seat check, the
// status change, the sessions ended on suspension.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { scimRepo, type ScimGroupFilter, type ScimUserFilter } from '../store/repositories/scim.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { decodeCursor, toPage, type PageRequest } from '../store/pagination.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import { isUuid } from '../kernel/ids.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { statusChange, type SeatCheck } from '../users/module.ts';
import type { ReleasePhoto } from '../images/module.ts';
import type { ScimGroupRow, UserRow } from '../store/schema.ts';
import { ScimError, scimNotFound } from './errors.ts';
import { fromScimGroup, fromScimUser, toScimGroup, toScimUser, type ScimUserInput, type ScimUserResource } from './mapping.ts';
import { applyGroupPatch, applyUserPatch, parsePatch } from './patch.ts';

const actor = { type: 'system' as const, id: 'scim' };
export const SCIM_TOKEN_PATTERN = /^scim_[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A page of a SCIM list: 1-based `startIndex`, `count` at most MAX_COUNT. */
export interface ScimPage {
  startIndex: number;
  count: number;
}
export const MAX_COUNT = 1000;

export function createScimService(deps: {
  db: Db;
  invalidate: Invalidate;
  seatCheck: SeatCheck;
  baseUrl: string;
  clock: () => Date;
  /** Deletes a deleted user's photo when nothing else shows it. */
  releasePhoto?: ReleasePhoto;
}) {
  const { db, invalidate, seatCheck, clock } = deps;
  const scimUrl = `${deps.baseUrl.replace(/\/$/, '')}/scim/v2`;

  /** The seat cap's 402 and a taken address's 409, in SCIM's words. */
  const asScim = (err: unknown, email?: string): unknown => {
    if (err instanceof AppError && err.code === 'PAYMENT_REQUIRED') return new ScimError(402, err.message);
    if (isUniqueViolation(err) && email !== undefined)
      return new ScimError(409, `The userName ${email} already belongs to a user, in this or another organisation.`, 'uniqueness');
    if (isUniqueViolation(err, 'scim_groups_org_name')) return new ScimError(409, 'A group of this organisation already has this displayName.', 'uniqueness');
    return err;
  };

  async function presentUsers(orgId: string, rows: UserRow[], on: Db = db) {
    const groups = await scimRepo.groupsOfUsers(
      on,
      orgId,
      rows.map((r) => r.id),
    );
    return rows.map((r) => toScimUser(r, groups.get(r.id) ?? [], scimUrl));
  }
  async function userRow(orgId: string, userId: string): Promise<UserRow> {
    const row = isUuid(userId) ? await usersRepo.find(db, orgId, userId) : undefined;
    if (!row) throw scimNotFound('User', userId);
    return row;
  }
  const ownerKept = () => new ScimError(400, "The organisation's owner is never suspended or deleted through SCIM.", 'mutability');
  // src/kernel/policy.ts: only an owner changes an owner's email (the sign-in, and a password reset's
  // address). The SCIM token is an admin's; a new userName would hand the owner's account to whoever reads that mailbox.
  const ownerEmailKept = () =>
    new ScimError(400, "The organisation's owner's userName (their email) is never changed through SCIM: the owner changes it in the dashboard.", 'mutability');

  /**
   * A PUT or PATCH of a user: `build` makes what to write from the user as read under the row's
   * lock. Providers send several PATCHes of one user at once (one per changed attribute); each
   * applies to the state the one before it left, so none writes back another's old value.
   * The user is locked before the org (the seat check): a dashboard restoring the same user at the
   * same moment locks them the other way round, and PostgreSQL ends that deadlock by failing one.
   */
  async function rewrite(orgId: string, correlationId: string, userId: string, build: (before: ScimUserResource) => ScimUserInput) {
    if (!isUuid(userId)) throw scimNotFound('User', userId);
    let email: string | undefined;
    try {
      const updated = await db.transaction().execute(async (tx) => {
        const row = await usersRepo.find(tx, orgId, userId, { lock: true });
        if (!row) throw scimNotFound('User', userId);
        const input = build((await presentUsers(orgId, [row], tx))[0]!);
        const { active: _active, externalId, ...profile } = input;
        email = profile.email;
        const emailChanged = profile.email.toLowerCase() !== row.email.toLowerCase();
        if (row.role === 'owner' && !input.active) throw ownerKept();
        if (row.role === 'owner' && emailChanged) throw ownerEmailKept();
        const change = statusChange(row, input.active ? 'active' : 'suspended');
        if (change?.restores) await seatCheck(tx, orgId);
        const saved = await scimRepo.updateUser(tx, orgId, row.id, {
          ...profile,
          externalId,
          status: change?.status ?? row.status,
          ...(emailChanged ? { email_verified: false } : {}),
        });
        if (!saved) throw scimNotFound('User', row.id);
        const fields: string[] = (['email', 'name', 'title', 'department', 'phone', 'mobile'] as const).filter((f) => saved[f] !== row[f]);
        if (change) fields.push('status');
        await recordAudit(tx, { orgId, correlationId, actor }, { action: 'user.update', targetId: row.id, changes: fields.sort() });
        if (change?.suspends) await oidcRepo.revokeAccount(tx, row.id);
        return saved;
      });
      invalidate.userChanged(orgId, updated.id);
      return (await presentUsers(orgId, [updated]))[0]!;
    } catch (err) {
      throw asScim(err, email);
    }
  }

  async function groupResource(orgId: string, groupId: string, withMembers = true) {
    const group = isUuid(groupId) ? await scimRepo.findGroup(db, orgId, groupId) : undefined;
    if (!group) throw scimNotFound('Group', groupId);
    const members = withMembers ? (await scimRepo.members(db, orgId, [group.id])).get(group.id) : undefined;
    return toScimGroup(group, members, scimUrl);
  }

  /**
   * A PUT or PATCH of a group: `next` makes its new state from the group and its members as read
   * under the group's row lock (concurrent PATCHes of one group, which Entra and Okta send, each
   * apply to what the one before wrote, none is lost). Only the members that come or go are
   * written: a PUT of a group of 10,000 that changes one member is one row, not 20,000
   * (BENCHMARKS.md, "SCIM").
   */
  async function saveGroup(
    orgId: string,
    correlationId: string,
    groupId: string,
    next: (group: ScimGroupRow, memberIds: string[]) => { displayName: string; externalId: string | null; memberIds: string[] },
  ) {
    if (!isUuid(groupId)) throw scimNotFound('Group', groupId);
    try {
      await db.transaction().execute(async (tx) => {
        const group = await scimRepo.lockGroup(tx, orgId, groupId);
        if (!group) throw scimNotFound('Group', groupId);
        const before = ((await scimRepo.members(tx, orgId, [groupId])).get(groupId) ?? []).map((m) => m.id);
        const input = next(group, before);
        const after = new Set(input.memberIds.map((id) => id.toLowerCase()));
        const was = new Set(before);
        await scimRepo.updateGroup(tx, orgId, groupId, input);
        await scimRepo.removeMembers(
          tx,
          orgId,
          groupId,
          before.filter((id) => !after.has(id)),
        );
        await scimRepo.addMembers(
          tx,
          orgId,
          groupId,
          [...after].filter((id) => !was.has(id)),
        );
        await recordAudit(tx, { orgId, correlationId, actor }, { action: 'group.update', targetId: groupId, changes: ['displayName', 'members'] });
      });
    } catch (err) {
      throw asScim(err);
    }
    invalidate.groupsChanged(orgId);
    return groupResource(orgId, groupId);
  }

  return {
    baseUrl: scimUrl,

    // The token, managed by admins through /v1 (admin-routes.ts).
    async enable(ctx: WriteContext): Promise<{ baseUrl: string; token: string }> {
      const token = `scim_${randomBytes(32).toString('base64url')}`;
      await db.transaction().execute(async (tx) => {
        await scimRepo.putToken(tx, ctx.orgId, hashToken(token), clock());
        await recordAudit(tx, ctx, { action: 'scim.enable', targetId: null, changes: ['token'] });
      });
      return { baseUrl: scimUrl, token };
    },
    async status(orgId: string) {
      const row = await scimRepo.findToken(db, orgId);
      return {
        enabled: row !== undefined,
        baseUrl: scimUrl,
        createdAt: row?.created_at.toISOString() ?? null,
        lastRequestAt: row?.last_request_at?.toISOString() ?? null,
      };
    },
    async revoke(ctx: WriteContext): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await scimRepo.deleteToken(tx, ctx.orgId))) throw notFound('SCIM token');
        await recordAudit(tx, ctx, { action: 'scim.revoke', targetId: null, changes: ['token'] });
      });
    },
    /** The org a bearer token names (noting the request for the dashboard), or undefined. */
    async orgOfToken(token: string): Promise<string | undefined> {
      if (!SCIM_TOKEN_PATTERN.test(token)) return undefined;
      return scimRepo.useToken(db, hashToken(token), clock());
    },

    async listUsers(orgId: string, filter: ScimUserFilter, page: ScimPage) {
      const { rows, total } = await scimRepo.listUsers(db, orgId, filter, page.startIndex - 1, page.count);
      return { total, resources: await presentUsers(orgId, rows) };
    },
    async getUser(orgId: string, userId: string) {
      return (await presentUsers(orgId, [await userRow(orgId, userId)]))[0]!;
    },
    async createUser(orgId: string, correlationId: string, body: unknown) {
      const input = fromScimUser(body);
      const { active, externalId, ...profile } = input;
      try {
        const row = await db.transaction().execute(async (tx) => {
          // A suspended user takes no seat; any other does, checked with the org locked.
          if (active) await seatCheck(tx, orgId);
          const created = await usersRepo.insertFromDirectory(tx, {
            id: randomUUID(),
            orgId,
            ...profile,
            source: 'scim',
            externalId,
            status: active ? 'invited' : 'suspended',
          });
          await recordAudit(
            tx,
            { orgId, correlationId, actor },
            { action: 'user.create', targetId: created.id, changes: ['department', 'email', 'mobile', 'name', 'phone', 'title'] },
          );
          return created;
        });
        invalidate.userChanged(orgId, row.id);
        return (await presentUsers(orgId, [row]))[0]!;
      } catch (err) {
        throw asScim(err, profile.email);
      }
    },
    replaceUser: (orgId: string, correlationId: string, userId: string, body: unknown) =>
      rewrite(orgId, correlationId, userId, (before) => fromScimUser(body, before)),
    async patchUser(orgId: string, correlationId: string, userId: string, body: unknown) {
      const plan = parsePatch(body, 'User');
      return rewrite(orgId, correlationId, userId, (before) => fromScimUser(applyUserPatch(before, plan), before));
    },
    async deleteUser(orgId: string, correlationId: string, userId: string): Promise<void> {
      const row = await userRow(orgId, userId);
      if (row.role === 'owner') throw ownerKept();
      await db.transaction().execute(async (tx) => {
        if (!(await usersRepo.softDelete(tx, orgId, row.id))) throw scimNotFound('User', userId);
        await recordAudit(tx, { orgId, correlationId, actor }, { action: 'user.delete', targetId: row.id, changes: ['deletedAt'] });
        await oidcRepo.revokeAccount(tx, row.id);
      });
      invalidate.userChanged(orgId, row.id);
      // A deleted user's photo goes with them, as through the API, unless something else shows it.
      await deps.releasePhoto?.({ orgId, correlationId, actor }, row.photo_image_id);
    },

    async listGroups(orgId: string, filter: ScimGroupFilter, page: ScimPage, withMembers: boolean) {
      const { rows, total } = await scimRepo.listGroups(db, orgId, filter, page.startIndex - 1, page.count);
      const members = withMembers
        ? await scimRepo.members(
            db,
            orgId,
            rows.map((r) => r.id),
          )
        : undefined;
      return { total, resources: rows.map((g) => toScimGroup(g, members?.get(g.id), scimUrl)) };
    },
    getGroup: (orgId: string, groupId: string, withMembers: boolean) => groupResource(orgId, groupId, withMembers),
    async createGroup(orgId: string, correlationId: string, body: unknown) {
      const input = fromScimGroup(body);
      const id = randomUUID();
      try {
        await db.transaction().execute(async (tx) => {
          await scimRepo.insertGroup(tx, { id, orgId, displayName: input.displayName, externalId: input.externalId });
          await scimRepo.addMembers(tx, orgId, id, input.memberIds);
          await recordAudit(tx, { orgId, correlationId, actor }, { action: 'group.create', targetId: id, changes: ['displayName', 'members'] });
        });
      } catch (err) {
        throw asScim(err);
      }
      invalidate.groupsChanged(orgId);
      return groupResource(orgId, id);
    },
    replaceGroup: (orgId: string, correlationId: string, groupId: string, body: unknown) => saveGroup(orgId, correlationId, groupId, () => fromScimGroup(body)),
    async patchGroup(orgId: string, correlationId: string, groupId: string, body: unknown) {
      const plan = parsePatch(body, 'Group');
      return saveGroup(orgId, correlationId, groupId, (group, before) => {
        const patched = applyGroupPatch(toScimGroup(group, undefined, scimUrl), before, plan);
        return fromScimGroup({ ...patched.resource, members: patched.memberIds.map((value) => ({ value })) });
      });
    },
    async deleteGroup(orgId: string, correlationId: string, groupId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!isUuid(groupId) || !(await scimRepo.deleteGroup(tx, orgId, groupId))) throw scimNotFound('Group', groupId);
        await recordAudit(tx, { orgId, correlationId, actor }, { action: 'group.delete', targetId: groupId });
      });
      invalidate.groupsChanged(orgId);
    },

    /** The org's groups for the dashboard and the rule editor (GET /v1/orgs/{orgId}/groups). */
    async pageGroups(orgId: string, page: PageRequest) {
      const rows = await scimRepo.pageGroups(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(
        rows,
        page.limit,
        (r) => r.seq,
        (r) => ({ groupId: r.id, displayName: r.display_name, memberCount: Number(r.member_count ?? 0) }),
      );
    },
  };
}

export type ScimService = ReturnType<typeof createScimService>;
