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
  /** One statement for a batch of clicks (the click route never writes on its own turn). */
  async insertMany(db: Db, rows: ClickRow[]): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('clicks')
      .values(
        rows.map((r) => ({
          org_id: r.orgId,
          campaign_id: r.campaignId,
          variant: r.variant,
          user_id: r.userId,
          destination: r.destination,
          at: r.at,
          address: r.address,
          user_agent: r.userAgent.slice(0, 500),
          suspected_bot: r.suspectedBot,
          bot_reason: r.botReason,
        })),
      )
      .execute();
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
