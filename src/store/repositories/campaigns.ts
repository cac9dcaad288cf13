import { sql, type Updateable } from 'kysely';
import type { Db } from '../db.ts';
import type { CampaignRow, CampaignsTable } from '../schema.ts';
import { atVersion, type VersionCheck } from '../conditional.ts';

type CampaignStatus = CampaignRow['announced_status'];

export const campaignsRepo = {
  async insert(
    db: Db,
    row: {
      id: string;
      org_id: string;
      name: string;
      starts_at: Date;
      ends_at: Date | null;
      audience: string;
      variants: string;
      utm: string | null;
      announced_status?: CampaignStatus;
    },
  ): Promise<CampaignRow> {
    return db.insertInto('campaigns').values(row).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string, campaignId: string): Promise<CampaignRow | undefined> {
    return db.selectFrom('campaigns').selectAll().where('org_id', '=', orgId).where('id', '=', campaignId).where('deleted_at', 'is', null).executeTakeFirst();
  },

  /** A page in creation order, after a position. */
  async page(db: Db, orgId: string, after: string | undefined, limit: number): Promise<CampaignRow[]> {
    let query = db.selectFrom('campaigns').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /** The campaigns that have not ended by `now` (scheduled or running): what renders consider. */
  async current(db: Db, orgId: string, now: Date): Promise<CampaignRow[]> {
    return db
      .selectFrom('campaigns')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
      .execute();
  },

  async update(db: Db, orgId: string, campaignId: string, check: VersionCheck, patch: Updateable<CampaignsTable>): Promise<CampaignRow | undefined> {
    return db
      .updateTable('campaigns')
      .set({ ...patch, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', campaignId)
      .where('deleted_at', 'is', null)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },

  async softDelete(db: Db, orgId: string, campaignId: string): Promise<boolean> {
    const res = await db
      .updateTable('campaigns')
      .set({ deleted_at: sql`now()`, version: sql`version + 1` })
      .where('org_id', '=', orgId)
      .where('id', '=', campaignId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },

  /** The sizes of the org's live images among these ids. */
  async imageSizes(db: Db, orgId: string, ids: string[]): Promise<Map<string, { width: number; height: number }>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('images')
      .select(['id', 'width', 'height'])
      .where('org_id', '=', orgId)
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null)
      .execute();
    return new Map(rows.map((r) => [r.id, { width: r.width, height: r.height }]));
  },
  /**
   * The live campaigns whose status by `now` (the service's clock, as `status` is judged) differs
   * from the one their events last announced, moved to it in the same statement: with SKIP LOCKED
   * and the re-check of a locked row, two instances claiming at once claim each change once. A
   * seq scan of the live campaigns (an org has tens): no index.
   */
  async claimTransitions(db: Db, now: Date): Promise<(CampaignRow & { was: CampaignStatus })[]> {
    const at = sql`${now.toISOString()}::timestamptz`;
    const status = sql`(case when starts_at > ${at} then 'scheduled' when ends_at is not null and ends_at <= ${at} then 'ended' else 'active' end)`;
    const rows = await sql<CampaignRow & { was: CampaignStatus }>`
      with due as (
        select id, announced_status as was, ${status} as status from campaigns
        where deleted_at is null and announced_status <> ${status}
        order by seq
        for update skip locked
      )
      update campaigns c set announced_status = due.status from due where c.id = due.id
      returning c.*, due.was`.execute(db);
    return rows.rows;
  },
};
