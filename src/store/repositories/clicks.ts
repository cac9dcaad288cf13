import { sql } from 'kysely';
import type { Db } from '../db.ts';

export interface ClickRow {
  orgId: string;
  campaignId: string | null;
  variant: number | null;
  userId: string;
  destination: string;
  at: Date;
  address: string;
  userAgent: string;
  suspectedBot: boolean;
  botReason: string | null;
}

export const clicksRepo = {
  /**
   * One statement for a batch of clicks (the click route never writes on its own turn): ten arrays
   * through unnest, not a VALUES list of ten parameters a row. The statement's text is the same
   * whatever the batch, so PostgreSQL parses ten parameters instead of 5,000 expressions, and the
   * query builder compiles nothing per row (BENCHMARKS.md, "click": the write was most of a click's CPU).
   */
  async insertMany(db: Db, rows: ClickRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <T>(pick: (r: ClickRow) => T): T[] => rows.map(pick);
    await sql`
      insert into clicks (org_id, campaign_id, variant, user_id, destination, at, address, user_agent, suspected_bot, bot_reason)
      select * from unnest(${col((r) => r.orgId)}::uuid[], ${col((r) => r.campaignId)}::uuid[], ${col((r) => r.variant)}::int[],
        ${col((r) => r.userId)}::uuid[], ${col((r) => r.destination)}::text[], ${col((r) => r.at.toISOString())}::timestamptz[],
        ${col((r) => r.address)}::text[], ${col((r) => r.userAgent.slice(0, 500))}::text[], ${col((r) => r.suspectedBot)}::boolean[],
        ${col((r) => r.botReason)}::text[])`.execute(db);
  },

  /** The org's clicks of a campaign (newest first), for tests and analytics. */
  async ofCampaign(db: Db, orgId: string, campaignId: string) {
    return db.selectFrom('clicks').selectAll().where('org_id', '=', orgId).where('campaign_id', '=', campaignId).orderBy('id', 'desc').execute();
  },

  /** Keeps only the network of addresses older than `before`: the /24 of IPv4, the /48 of IPv6. */
  async truncateAddresses(db: Db, before: Date): Promise<number> {
    const res = await sql`
      update clicks set address = case
        when position(':' in address) > 0 then host(set_masklen(address::inet, 48)::cidr)
        else host(set_masklen(address::inet, 24)::cidr) end
      where at < ${before} and address not like '%/%' and masklen(address::inet) = case when position(':' in address) > 0 then 128 else 32 end
        and address <> host(set_masklen(address::inet, case when position(':' in address) > 0 then 48 else 24 end)::cidr)`.execute(db);
    return Number(res.numAffectedRows ?? 0);
  },
};
