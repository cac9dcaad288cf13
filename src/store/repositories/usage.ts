// The monthly quota's counts (src/quota/counter.ts): batched additions and reads of the totals.
import { sql } from 'kysely';
import type { Db } from '../db.ts';

export const usageRepo = {
  /** Adds each org's count to its month's total in one statement; answers the new totals. */
  async add(db: Db, month: string, counts: Map<string, number>): Promise<Map<string, number>> {
    if (counts.size === 0) return new Map();
    const rows = [...counts].map(([orgId, n]) => ({ org_id: orgId, month, requests: n }));
    const result = await db
      .insertInto('org_usage')
      .values(rows)
      .onConflict((oc) => oc.columns(['org_id', 'month']).doUpdateSet({ requests: sql`org_usage.requests + excluded.requests` }))
      .returning(['org_id', 'requests'])
      .execute();
    return new Map(result.map((r) => [r.org_id, Number(r.requests)]));
  },

  /** The month's totals of these orgs (0 for an org with none). */
  async totals(db: Db, month: string, orgIds: string[]): Promise<Map<string, number>> {
    const totals = new Map(orgIds.map((id) => [id, 0]));
    if (orgIds.length === 0) return totals;
    const rows = await db.selectFrom('org_usage').select(['org_id', 'requests']).where('month', '=', month).where('org_id', 'in', orgIds).execute();
    for (const r of rows) totals.set(r.org_id, Number(r.requests));
    return totals;
  },

  /** The orgs' own quotas (staff settings); null: the default. */
  async quotas(db: Db, orgIds: string[]): Promise<Map<string, number | null>> {
    if (orgIds.length === 0) return new Map();
    const rows = await db.selectFrom('orgs').select(['id', 'quota_per_month']).where('id', 'in', orgIds).execute();
    return new Map(rows.map((r) => [r.id, r.quota_per_month]));
  },
};
