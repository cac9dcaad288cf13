// Campaign stats (docs/api.md, "Campaign stats"): per variant and per day, impressions, clicks,
// human and suspected-bot clicks, and the click-through rate of people (human clicks per
// impression); and the same as CSV, safe to open in a spreadsheet.
import type { Db } from '../store/db.ts';
import { campaignStatsRepo } from '../store/repositories/campaign-stats.ts';
import type { Campaign } from './service.ts';

export interface CampaignStats {
  campaignId: string;
  variants: {
    variant: number;
    imageId: string;
    alt: string;
    impressions: number;
    clicks: number;
    humanClicks: number;
    suspectedBotClicks: number;
    ctr: number | null;
  }[];
  days: { date: string; impressions: number; clicks: number; humanClicks: number; suspectedBotClicks: number }[];
}

const ctrOf = (human: number, impressions: number) => (impressions > 0 ? human / impressions : null);

export async function campaignStats(
  db: Db,
  campaign: Campaign,
  orgId: string,
  from: string,
  to: string,
): Promise<{ stats: CampaignStats; rows: Awaited<ReturnType<typeof campaignStatsRepo.byVariantAndDay>> }> {
  const rows = await campaignStatsRepo.byVariantAndDay(db, orgId, campaign.campaignId, from, to);
  const variants = campaign.variants.map((v, variant) => {
    const mine = rows.filter((r) => r.variant === variant);
    const impressions = mine.reduce((s, r) => s + r.impressions, 0);
    const clicks = mine.reduce((s, r) => s + r.clicks, 0);
    const bots = mine.reduce((s, r) => s + r.botClicks, 0);
    return {
      variant,
      imageId: v.imageId,
      alt: v.alt,
      impressions,
      clicks,
      humanClicks: clicks - bots,
      suspectedBotClicks: bots,
      ctr: ctrOf(clicks - bots, impressions),
    };
  });
  const byDay = new Map<string, CampaignStats['days'][number]>();
  for (const r of rows) {
    const d = byDay.get(r.day) ?? { date: r.day, impressions: 0, clicks: 0, humanClicks: 0, suspectedBotClicks: 0 };
    d.impressions += r.impressions;
    d.clicks += r.clicks;
    d.humanClicks += r.clicks - r.botClicks;
    d.suspectedBotClicks += r.botClicks;
    byDay.set(r.day, d);
  }
  return { stats: { campaignId: campaign.campaignId, variants, days: [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date)) }, rows };
}

/** A spreadsheet cell: quoted, and a leading = + - @ made text (formula injection, OWASP's advice). */
export function csvCell(value: string | number | null): string {
  let s = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One row per variant and day, with the campaign's name and the variant's alt. */
export function statsCsv(campaign: Campaign, rows: Awaited<ReturnType<typeof campaignStatsRepo.byVariantAndDay>>): string {
  const header = ['campaign', 'date', 'variant', 'alt', 'impressions', 'clicks', 'humanClicks', 'suspectedBotClicks', 'ctr'];
  const lines = rows.map((r) => {
    const human = r.clicks - r.botClicks;
    const ctr = ctrOf(human, r.impressions);
    return [
      campaign.name,
      r.day,
      r.variant,
      campaign.variants[r.variant]?.alt ?? '',
      r.impressions,
      r.clicks,
      human,
      r.botClicks,
      ctr === null ? null : Number(ctr.toFixed(6)),
    ]
      .map(csvCell)
      .join(',');
  });
  return `${[header.join(','), ...lines].join('\r\n')}\r\n`;
}
