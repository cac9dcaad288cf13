import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { StoredRule } from '../schema.ts';

export const rulesRepo = {
  /**
   * The org's rules and their version; an org that never saved any has none, at version 0. With
   * `lock` (inside a transaction), the row stays locked until it ends.
   */
  async find(db: Db, orgId: string, opts: { lock?: boolean } = {}): Promise<{ rules: StoredRule[]; version: number }> {
    let query = db.selectFrom('org_rules').select(['rules', 'version']).where('org_id', '=', orgId);
    if (opts.lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row ?? { rules: [], version: 0 };
  },

  /**
   * Replaces the list: at any version when `ifMatch` is undefined, else only at that version
   * (0: only while none was ever saved). Undefined when the version no longer matches.
   */
  async replace(db: Db, orgId: string, rules: StoredRule[], ifMatch: number | undefined): Promise<{ rules: StoredRule[]; version: number } | undefined> {
    const json = JSON.stringify(rules);
    if (ifMatch !== undefined && ifMatch !== 0) {
      return db
        .updateTable('org_rules')
        .set({ rules: json, version: sql`version + 1`, updated_at: sql`now()` })
        .where('org_id', '=', orgId)
        .where('version', '=', ifMatch)
        .returning(['rules', 'version'])
        .executeTakeFirst();
    }
    return db
      .insertInto('org_rules')
      .values({ org_id: orgId, rules: json })
      .onConflict((oc) =>
        ifMatch === 0
          ? oc.column('org_id').doNothing()
          : oc.column('org_id').doUpdateSet({ rules: json, version: sql`org_rules.version + 1`, updated_at: sql`now()` }),
      )
      .returning(['rules', 'version'])
      .executeTakeFirst();
  },

  /** Each user's SCIM group names (lower-cased), for the users of the org who belong to any. */
  async groupNamesByUser(db: Db, orgId: string): Promise<Map<string, string[]>> {
    const rows = await db
      .selectFrom('scim_group_members as m')
      .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
      .select(['m.user_id', 'g.display_name'])
      .where('m.org_id', '=', orgId)
      .where('g.org_id', '=', orgId)
      .execute();
    const byUser = new Map<string, string[]>();
    for (const r of rows) {
      const names = byUser.get(r.user_id) ?? [];
      names.push(r.display_name.toLowerCase());
      byUser.set(r.user_id, names);
    }
    return byUser;
  },

  /** The ids among these that name live templates of the org. */
  async liveTemplateIds(db: Db, orgId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db.selectFrom('templates').select('id').where('org_id', '=', orgId).where('id', 'in', ids).where('deleted_at', 'is', null).execute();
    return new Set(rows.map((r) => r.id));
  },
};
