import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { CustomField, OrgRow, OrgsTable } from '../schema.ts';
import type { Updateable } from 'kysely';
import { atVersion, type VersionCheck } from '../conditional.ts';

export type OrgWithUsage = OrgRow & { seats_used: number };

/**
 * An org row with its effective seats and plan: a staff override where set, else what the payment
 * events gave (billing reads and writes the events' values apart: src/store/repositories/billing.ts).
 */
export function effective<T extends OrgRow>(row: T): T {
  return { ...row, seats: row.seats_override ?? row.seats, plan: row.plan_override ?? row.plan };
}

export interface StaffOverrides {
  seats_override?: number | null;
  plan_override?: string | null;
  trial_ends_at?: Date | null;
  quota_per_month?: number | null;
}

/** An org row's live users, read from the count the database keeps (migration 042), not counted. */
export const seatsUsedColumn = sql<number>`coalesce((select l.live from org_live_users l where l.org_id = orgs.id), 0)`.as('seats_used');

export const orgsRepo = {
  async insert(db: Db, org: { id: string; name: string; seats: number; plan: string }): Promise<OrgRow> {
    return db.insertInto('orgs').values(org).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string): Promise<OrgWithUsage | undefined> {
    const row = await db.selectFrom('orgs').selectAll('orgs').select(seatsUsedColumn).where('id', '=', orgId).executeTakeFirst();
    return row && effective(row);
  },

  /** Sets staff overrides (a staff setting: no version check, though the version moves for caches and ETags). */
  async setOverrides(db: Db, orgId: string, overrides: StaffOverrides): Promise<OrgRow | undefined> {
    return db
      .updateTable('orgs')
      .set({ ...overrides, version: sql`version + 1`, updated_at: sql`now()` })
      .where('id', '=', orgId)
      .returningAll()
      .executeTakeFirst();
  },

  /** Conditional update: matches only the expected version (and If-Match's, when sent). */
  async update(
    db: Db,
    orgId: string,
    check: VersionCheck,
    patch: Pick<Updateable<OrgsTable>, 'name' | 'website' | 'address' | 'social' | 'logo_image_id' | 'self_service_fields'>,
  ): Promise<OrgRow | undefined> {
    return db
      .updateTable('orgs')
      .set({ ...patch, version: sql`version + 1`, updated_at: sql`now()` })
      .where('id', '=', orgId)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * Replaces the custom fields when `ifMatch` (their version) is current or absent: bumps their
   * version and the org's (the org answers its fields, so its ETag moves too). Undefined: stale.
   */
  async replaceFields(db: Db, orgId: string, fields: CustomField[], ifMatch: number | undefined): Promise<OrgRow | undefined> {
    let query = db
      .updateTable('orgs')
      .set({ fields: JSON.stringify(fields), fields_version: sql`fields_version + 1`, version: sql`version + 1`, updated_at: sql`now()` })
      .where('id', '=', orgId);
    if (ifMatch !== undefined) query = query.where('fields_version', '=', ifMatch);
    return query.returningAll().executeTakeFirst();
  },

  /**
   * Removes these custom values from the org's users (a new version each): all its users, or only
   * those of `userIds`. The ids of the users changed.
   */
  async dropAttributes(db: Db, orgId: string, keys: string[], userIds?: string[]): Promise<string[]> {
    if (keys.length === 0 || userIds?.length === 0) return [];
    let query = db
      .updateTable('users')
      .set({ attributes: sql`attributes - ${sql.val(keys)}::text[]`, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where(sql<boolean>`attributes ?| ${sql.val(keys)}::text[]`);
    if (userIds) query = query.where('id', 'in', userIds);
    const rows = await query.returning('id').execute();
    return rows.map((r) => r.id);
  },

  /** The org's users (deleted ones too: a restore brings values back) holding a value of any of these keys, with their values. */
  async withAttributes(db: Db, orgId: string, keys: string[]): Promise<{ id: string; attributes: Record<string, string> }[]> {
    if (keys.length === 0) return [];
    return db
      .selectFrom('users')
      .select(['id', 'attributes'])
      .where('org_id', '=', orgId)
      .where(sql<boolean>`attributes ?| ${sql.val(keys)}::text[]`)
      .execute();
  },
};
