// SCIM 2.0 provisioning's tables (src/scim/): the org's token, the users a SCIM client reads and
// writes (users.directory_source = 'scim', users.directory_id = its externalId), and groups with
// their members. Every function of tenant data takes the org id and filters by it.
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ScimGroupRow, UserRow, UserStatus } from '../schema.ts';
import type { DirectoryProfile } from './directory.ts';
import { isUuid } from '../../kernel/ids.ts';

/** What a SCIM filter may narrow users by (src/scim/filter.ts); every given field must match. */
export interface ScimUserFilter {
  userName?: string;
  externalId?: string;
  displayName?: string;
  email?: string;
  /** A filter that can match nothing (an attribute we do not keep). */
  none?: boolean;
}

export interface ScimGroupFilter {
  displayName?: string;
  externalId?: string;
  none?: boolean;
}

const lowerEq = (column: string, value: string) => sql<boolean>`lower(${sql.ref(column)}) = ${value.toLowerCase()}`;

export const scimRepo = {
  async findToken(db: Db, orgId: string) {
    return db.selectFrom('scim_tokens').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  /** The org a token's hash names, noting the request's time (one statement per SCIM request). */
  async useToken(db: Db, tokenHash: string, at: Date): Promise<string | undefined> {
    const row = await db.updateTable('scim_tokens').set({ last_request_at: at }).where('token_hash', '=', tokenHash).returning('org_id').executeTakeFirst();
    return row?.org_id;
  },

  /** Sets the org's token, replacing any earlier one (which stops working at once). */
  async putToken(db: Db, orgId: string, tokenHash: string, at: Date) {
    return db
      .insertInto('scim_tokens')
      .values({ org_id: orgId, token_hash: tokenHash, created_at: at, last_request_at: null })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ token_hash: tokenHash, created_at: at, last_request_at: null }))
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async deleteToken(db: Db, orgId: string): Promise<boolean> {
    const result = await db.deleteFrom('scim_tokens').where('org_id', '=', orgId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /** Live users of the org (suspended ones too: SCIM shows them `active: false`), a page by offset, and how many match. */
  async listUsers(db: Db, orgId: string, filter: ScimUserFilter, offset: number, limit: number): Promise<{ rows: UserRow[]; total: number }> {
    if (filter.none) return { rows: [], total: 0 };
    let query = db.selectFrom('users').where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (filter.userName !== undefined) query = query.where(lowerEq('email', filter.userName));
    if (filter.email !== undefined) query = query.where(lowerEq('email', filter.email));
    if (filter.displayName !== undefined) query = query.where(lowerEq('name', filter.displayName));
    if (filter.externalId !== undefined) query = query.where('directory_source', '=', 'scim').where('directory_id', '=', filter.externalId);
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('seq').offset(offset).limit(limit).execute(),
      query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /** Sets what SCIM sent on a live user and links them to SCIM (no version check: the client is the authority). */
  async updateUser(
    db: Db,
    orgId: string,
    userId: string,
    patch: DirectoryProfile & { externalId: string | null; status: UserStatus; email_verified?: boolean },
  ): Promise<UserRow | undefined> {
    const { externalId, ...fields } = patch;
    return db
      .updateTable('users')
      .set({ ...fields, directory_source: 'scim', directory_id: externalId, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  async listGroups(db: Db, orgId: string, filter: ScimGroupFilter, offset: number, limit: number): Promise<{ rows: ScimGroupRow[]; total: number }> {
    if (filter.none) return { rows: [], total: 0 };
    let query = db.selectFrom('scim_groups').where('org_id', '=', orgId);
    if (filter.displayName !== undefined) query = query.where(lowerEq('display_name', filter.displayName));
    if (filter.externalId !== undefined) query = query.where('external_id', '=', filter.externalId);
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('seq').offset(offset).limit(limit).execute(),
      query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /** The org's groups in seq order after a position, each with its count of live members (the dashboard's list). */
  async pageGroups(db: Db, orgId: string, after: string | undefined, limit: number) {
    let query = db
      .selectFrom('scim_groups as g')
      .select(['g.id', 'g.seq', 'g.display_name'])
      .select((eb) =>
        eb
          .selectFrom('scim_group_members as m')
          .innerJoin('users as u', 'u.id', 'm.user_id')
          .whereRef('m.group_id', '=', 'g.id')
          .where('u.deleted_at', 'is', null)
          .select(eb.fn.countAll<string>().as('n'))
          .as('member_count'),
      )
      .where('g.org_id', '=', orgId);
    if (after !== undefined) query = query.where('g.seq', '>', after);
    return query
      .orderBy('g.seq')
      .limit(limit + 1)
      .execute();
  },

  async findGroup(db: Db, orgId: string, groupId: string): Promise<ScimGroupRow | undefined> {
    return db.selectFrom('scim_groups').selectAll().where('org_id', '=', orgId).where('id', '=', groupId).executeTakeFirst();
  },

  /** The group, its row locked until the transaction ends: a PATCH reads and writes its members under it, so two never interleave. */
  async lockGroup(tx: Db, orgId: string, groupId: string): Promise<ScimGroupRow | undefined> {
    return tx.selectFrom('scim_groups').selectAll().where('org_id', '=', orgId).where('id', '=', groupId).forUpdate().executeTakeFirst();
  },

  async insertGroup(db: Db, group: { id: string; orgId: string; displayName: string; externalId: string | null }): Promise<ScimGroupRow> {
    return db
      .insertInto('scim_groups')
      .values({ id: group.id, org_id: group.orgId, display_name: group.displayName, external_id: group.externalId })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async updateGroup(db: Db, orgId: string, groupId: string, patch: { displayName: string; externalId: string | null }): Promise<ScimGroupRow | undefined> {
    return db
      .updateTable('scim_groups')
      .set({ display_name: patch.displayName, external_id: patch.externalId, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', groupId)
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * Deletes the group. Its members' rows are marked changed first: the group may have chosen their
   * template (rules, campaign audiences), and a deleted row leaves no newer `updated_at` for the
   * Gmail push's scheduler to find (googleRepo.claimChanged).
   */
  async deleteGroup(db: Db, orgId: string, groupId: string): Promise<boolean> {
    await db
      .updateTable('users')
      .set({ updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', 'in', (eb) => eb.selectFrom('scim_group_members').select('user_id').where('org_id', '=', orgId).where('group_id', '=', groupId))
      .execute();
    const result = await db.deleteFrom('scim_groups').where('org_id', '=', orgId).where('id', '=', groupId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /** The live members of these groups (of the org), by group. */
  async members(db: Db, orgId: string, groupIds: string[]): Promise<Map<string, { id: string; name: string; email: string }[]>> {
    const byGroup = new Map<string, { id: string; name: string; email: string }[]>(groupIds.map((id) => [id, []]));
    if (groupIds.length === 0) return byGroup;
    const rows = await db
      .selectFrom('scim_group_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.group_id', 'u.id', 'u.name', 'u.email'])
      .where('m.org_id', '=', orgId)
      .where('m.group_id', 'in', groupIds)
      .where('u.deleted_at', 'is', null)
      .orderBy('u.seq')
      .execute();
    for (const r of rows) byGroup.get(r.group_id)?.push({ id: r.id, name: r.name, email: r.email });
    return byGroup;
  },

  /** Adds the org's live users among these ids to the group (others' ids, and unknown ones, add nothing); the ids added. */
  async addMembers(db: Db, orgId: string, groupId: string, given: string[]): Promise<void> {
    // An id that is no UUID names no user either (and the uuid column would refuse the statement).
    const userIds = given.filter(isUuid);
    if (userIds.length === 0) return;
    await db
      .insertInto('scim_group_members')
      .columns(['group_id', 'user_id', 'org_id'])
      .expression((eb) =>
        eb
          .selectFrom('users')
          .select([sql<string>`${groupId}::uuid`.as('group_id'), 'id', 'org_id'])
          .where('org_id', '=', orgId)
          .where('deleted_at', 'is', null)
          .where('id', 'in', [...new Set(userIds)]),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async removeMembers(db: Db, orgId: string, groupId: string, userIds: string[] | 'all'): Promise<void> {
    let query = db.deleteFrom('scim_group_members').where('org_id', '=', orgId).where('group_id', '=', groupId);
    if (userIds !== 'all') {
      const ids = userIds.filter(isUuid);
      if (ids.length === 0) return;
      query = query.where('user_id', 'in', ids);
    }
    await query.execute();
  },

  /** The groups of these users (for the SCIM user's `groups`). */
  async groupsOfUsers(db: Db, orgId: string, userIds: string[]): Promise<Map<string, { id: string; displayName: string }[]>> {
    const byUser = new Map<string, { id: string; displayName: string }[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return byUser;
    const rows = await db
      .selectFrom('scim_group_members as m')
      .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
      .select(['m.user_id', 'g.id', 'g.display_name'])
      .where('m.org_id', '=', orgId)
      .where('m.user_id', 'in', userIds)
      .orderBy('g.seq')
      .execute();
    for (const r of rows) byUser.get(r.user_id)?.push({ id: r.id, displayName: r.display_name });
    return byUser;
  },
};
