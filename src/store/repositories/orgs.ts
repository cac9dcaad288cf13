import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { OrgRow } from '../schema.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';

export type OrgWithUsage = OrgRow & { seats_used: number };

/** An org row's live users, read from the count the database keeps (migration 042), not counted. */
export const seatsUsedColumn = sql<number>`coalesce((select l.live from org_live_users l where l.org_id = orgs.id), 0)`.as('seats_used');

export const orgsRepo = {
  async insert(db: Db, org: { id: string; name: string; seats: number; plan: string }): Promise<OrgRow> {
    return db.insertInto('orgs').values(org).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string): Promise<OrgWithUsage | undefined> {
    return db
      .selectFrom('orgs')
      .selectAll('orgs')
      .select(seatsUsedColumn)
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
