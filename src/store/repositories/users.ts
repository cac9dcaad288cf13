import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { NewUser, UserRow, UserUpdate } from '../schema.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';

// Every function takes the org id and filters by it: no query reads or writes another tenant's user.
export const usersRepo = {
  async insert(db: Db, user: NewUser): Promise<UserRow> {
    return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string, userId: string): Promise<UserRow | undefined> {
    return db
      .selectFrom('users')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
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


  async list(db: Db, orgId: string, after: string | undefined, limit: number): Promise<UserRow[]> {
    let query = db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query.orderBy('seq').limit(limit + 1).execute();
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
