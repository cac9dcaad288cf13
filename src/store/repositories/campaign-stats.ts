import { sql } from 'kysely';
import type { Db } from '../db.ts';

export interface ImpressionCount {
  orgId: string;
  campaignId: string;
  variant: number;
  day: string;
  count: number;
}

export interface DayRow {
  variant: number;
  day: string;
  impressions: number;
  clicks: number;
  botClicks: number;
}

export const campaignStatsRepo = {
  /** Adds a batch of counts in one statement. */
  async addImpressions(db: Db, counts: ImpressionCount[]): Promise<void> {
    if (counts.length === 0) return;
    await db
      .insertInto('campaign_impressions')
      .values(counts.map((c) => ({ org_id: c.orgId, campaign_id: c.campaignId, variant: c.variant, day: c.day, count: c.count })))
      .onConflict((oc) => oc.columns(['org_id', 'campaign_id', 'variant', 'day']).doUpdateSet({ count: sql`campaign_impressions.count + excluded.count` }))
      .execute();
  },

  /** Impressions and clicks per variant and UTC day, `from` to `to` inclusive (YYYY-MM-DD). */
  async byVariantAndDay(db: Db, orgId: string, campaignId: string, from: string, to: string): Promise<DayRow[]> {
    const rows = await sql<{ variant: number; day: string; impressions: string; clicks: string; bot_clicks: string }>`
      with i as (
        select variant, to_char(day, 'YYYY-MM-DD') as day, sum(count) as n from campaign_impressions
        where org_id = ${orgId} and campaign_id = ${campaignId} and day between ${from}::date and ${to}::date
        group by 1, 2
      ), c as (
        select variant, to_char((at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, count(*) as n, count(*) filter (where suspected_bot) as bots from clicks
        where org_id = ${orgId} and campaign_id = ${campaignId} and variant is not null
          and at >= (${from}::date)::timestamp at time zone 'UTC' and at < (${to}::date + 1)::timestamp at time zone 'UTC'
        group by 1, 2
      )
      select coalesce(i.variant, c.variant) as variant, coalesce(i.day, c.day) as day,
        coalesce(i.n, 0) as impressions, coalesce(c.n, 0) as clicks, coalesce(c.bots, 0) as bot_clicks
      from i full outer join c on i.variant = c.variant and i.day = c.day
      order by 2, 1`.execute(db);
    return rows.rows.map((r) => ({
      variant: Number(r.variant),
      day: r.day,
      impressions: Number(r.impressions),
      clicks: Number(r.clicks),
      botClicks: Number(r.bot_clicks),
    }));
  },
};
