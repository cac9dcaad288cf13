import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DirectorySource, NewUser, OrgRole, UserRow, UserSort, UserStatus, UserUpdate } from '../schema.ts';
import type { DirectoryProfile } from './directory.ts';

export interface UserFilter {
  q?: string | undefined;
  role?: OrgRole | undefined;
  department?: string | undefined;
  status?: 'invited' | 'active' | 'suspended' | undefined;
  /** Members of this group (scim_groups) only. */
  group?: string | undefined;
}

// The text each column sorts by (seq breaks ties): the name as shown (the email when there is none),
// roles from the most powerful down, departments without case.
const SORT_KEYS = {
  name: sql<string>`lower(coalesce(nullif(name, ''), email))`,
  role: sql<string>`(case role when 'owner' then '0' when 'admin' then '1' else '2' end)`,
  department: sql<string>`lower(department)`,
  status: sql<string>`status`,
} as const;
export type UserSortColumn = keyof typeof SORT_KEYS;
export const sortColumnOf = (sort: UserSort): UserSortColumn | undefined => (sort === 'created' ? undefined : (sort.replace('-', '') as UserSortColumn));
import { atVersion, type VersionCheck } from '../conditional.ts';

// Every function takes the org id and filters by it: no query reads or writes another tenant's user.
export const usersRepo = {
  async insert(db: Db, user: NewUser): Promise<UserRow> {
    return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  },

  /**
   * A user a directory brings in, linked to it: a sync (src/directory/service.ts) or a SCIM client
   * (src/scim/service.ts, which names the status: a user created inactive is suspended). A member
   * without a password; the status the table's default ('invited') unless given.
   */
  async insertFromDirectory(
    db: Db,
    user: DirectoryProfile & { id: string; orgId: string; source: DirectorySource; externalId: string | null; status?: UserStatus },
  ): Promise<UserRow> {
    return db
      .insertInto('users')
      .values({
        id: user.id,
        org_id: user.orgId,
        email: user.email,
        name: user.name,
        title: user.title,
        department: user.department,
        phone: user.phone,
        mobile: user.mobile,
        role: 'member',
        password_hash: null,
        directory_source: user.source,
        directory_id: user.externalId,
        ...(user.status === undefined ? {} : { status: user.status }),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** A live user of the org; with `lock` (inside a transaction), its row stays locked until the transaction ends. */
  async find(db: Db, orgId: string, userId: string, opts: { lock?: boolean } = {}): Promise<UserRow | undefined> {
    const query = db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', userId).where('deleted_at', 'is', null);
    return (opts.lock ? query.forUpdate() : query).executeTakeFirst();
  },

  /** Several live users of one org, in one query (the ids of other orgs' users find nothing). */
  async findMany(db: Db, orgId: string, userIds: string[]): Promise<UserRow[]> {
    if (userIds.length === 0) return [];
    return db
      .selectFrom('users')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', 'in', [...new Set(userIds)])
      .where('deleted_at', 'is', null)
      .execute();
  },

  /** Live users of the org in `seq` order, narrowed by the dashboard's filters (docs/api.md, "Search and filters"). */
  async list(
    db: Db,
    orgId: string,
    filter: UserFilter,
    sort: UserSort,
    after: { seq: string; key?: string | undefined } | undefined,
    limit: number,
  ): Promise<(UserRow & { sort_key: string | null })[]> {
    const column = sortColumnOf(sort);
    const key = column ? SORT_KEYS[column] : sql<string | null>`null`;
    let query = db.selectFrom('users').selectAll().select(key.as('sort_key')).where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (filter.q) {
      // A substring of the name or the email, case-insensitive; LIKE's wildcards in q match themselves.
      const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('email', 'ilike', pattern)]));
    }
    if (filter.role) query = query.where('role', '=', filter.role);
    if (filter.department !== undefined) query = query.where(sql`lower(department)`, '=', filter.department.toLowerCase());
    // Invited: the user has not chosen a password yet (an invitation or a reset sets one).
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.group) {
      const group = filter.group;
      query = query.where('id', 'in', (eb) => eb.selectFrom('scim_group_members').select('user_id').where('org_id', '=', orgId).where('group_id', '=', group));
    }
    if (!column) {
      if (after !== undefined) query = query.where('seq', '>', after.seq);
      return query
        .orderBy('seq')
        .limit(limit + 1)
        .execute();
    }
    const descending = sort.startsWith('-');
    if (after !== undefined) {
      const position = sql`(${key}, seq)`;
      const last = sql`(${after.key ?? ''}, ${after.seq}::bigint)`;
      query = query.where(descending ? sql<boolean>`${position} < ${last}` : sql<boolean>`${position} > ${last}`);
    }
    const direction = descending ? 'desc' : 'asc';
    return query
      .orderBy(key, direction)
      .orderBy('seq', direction)
      .limit(limit + 1)
      .execute();
  },

  /** The live user of the org with this email (case-insensitive, as the unique index compares). */
  async findByEmail(db: Db, orgId: string, email: string): Promise<UserRow | undefined> {
    return db
      .selectFrom('users')
      .selectAll()
      .where('org_id', '=', orgId)
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  async update(db: Db, orgId: string, userId: string, check: VersionCheck, patch: UserUpdate): Promise<UserRow | undefined> {
    return db
      .updateTable('users')
      .set({ ...patch, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },

  async softDelete(db: Db, orgId: string, userId: string): Promise<UserRow | undefined> {
    return db
      .updateTable('users')
      .set({ deleted_at: sql`now()`, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },
};
