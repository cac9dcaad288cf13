import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { OrgRow } from '../schema.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';

export type OrgWithUsage = OrgRow & { seats_used: number };

export const orgsRepo = {
  async insert(db: Db, org: { id: string; name: string; seats: number; plan: string }): Promise<OrgRow> {
    return db.insertInto('orgs').values(org).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string): Promise<OrgWithUsage | undefined> {
    return db
      .selectFrom('orgs')
      .selectAll('orgs')
      .select(
        sql<number>`(select count(*)::int from users u where u.org_id = orgs.id and u.deleted_at is null)`.as('seats_used'),
      )
      .where('id', '=', orgId)
      .executeTakeFirst();
  },

  /** Conditional update: matches only the expected version (and If-Match's, when sent). */
  async update(
    db: Db,
    orgId: string,
    check: VersionCheck,
    patch: { name?: string | undefined },
  ): Promise<OrgRow | undefined> {
    return db
      .updateTable('orgs')
      .set({ ...patch, version: sql`version + 1`, updated_at: sql`now()` })
      .where('id', '=', orgId)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },
};
