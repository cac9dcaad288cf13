// Which campaign, and which of its banners, a person sees (docs/api.md, "Campaigns"). Pure: the
// clock and the person's facts are passed in, so unit tests cover times and weights exactly.
import { createHash } from 'node:crypto';
import { matches, type RuleFacts } from '../rules/module.ts';
import type { CampaignRow, CampaignUtm, CampaignVariant } from '../store/schema.ts';
import { escapeHtml } from '../lib/html.ts';

export type CampaignStatus = 'scheduled' | 'active' | 'ended';

export function statusOf(c: Pick<CampaignRow, 'starts_at' | 'ends_at'>, now: Date): CampaignStatus {
  if (now < c.starts_at) return 'scheduled';
  if (c.ends_at && now >= c.ends_at) return 'ended';
  return 'active';
}

/**
 * The variant this person sees: a point in [0, 1) drawn from a hash of the campaign and the
 * person (so the same every time, and independent between campaigns), laid over the weights.
 * Null when every variant is paused (weight 0).
 */
export function pickVariant(campaignId: string, userId: string, variants: readonly Pick<CampaignVariant, 'weight'>[]): number | null {
  const total = variants.reduce((sum, v) => sum + v.weight, 0);
  if (total <= 0) return null;
  const digest = createHash('sha256').update(`${campaignId}:${userId}`).digest();
  let point = (digest.readUIntBE(0, 6) / 2 ** 48) * total;
  for (let i = 0; i < variants.length; i++) {
    const weight = variants[i]?.weight ?? 0;
    if (point < weight) return i;
    point -= weight;
  }
  // Floating-point rounding at the very top: the last variant with a weight.
  return variants.findLastIndex((v) => v.weight > 0);
}

/**
 * The campaign a person sees now: active, its audience met, not every variant paused (one whose
 * variants are all at weight 0 shows nothing, so it does not hide an older one), the newest
 * started where several are.
 */
export function campaignFor<
  C extends Pick<CampaignRow, 'starts_at' | 'ends_at' | 'audience' | 'seq'> & { variants: readonly Pick<CampaignVariant, 'weight'>[] },
>(campaigns: readonly C[], user: RuleFacts, now: Date): C | undefined {
  return campaigns
    .filter((c) => statusOf(c, now) === 'active' && c.variants.some((v) => v.weight > 0) && matches(c.audience, user))
    .sort((a, b) => b.starts_at.getTime() - a.starts_at.getTime() || Number(BigInt(b.seq) - BigInt(a.seq)))[0];
}

const UTM_KEYS = new Set(['utm_source', 'utm_medium', 'utm_campaign']);

/**
 * The destination with the campaign's UTM parameters set: any of the three the link already has
 * give way to the campaign's, every other part of it is kept as written. By hand, not with
 * URLSearchParams, which writes the whole query again (`%20` as `+`, a bare `flag` as `flag=`,
 * `;` percent-encoded) and so breaks links whose query is signed or read as written.
 */
export function withUtm(link: string, utm: CampaignUtm | null): string {
  if (!utm) return link;
  const hashAt = link.indexOf('#');
  const [beforeHash, hash] = hashAt < 0 ? [link, ''] : [link.slice(0, hashAt), link.slice(hashAt)];
  const queryAt = beforeHash.indexOf('?');
  const [path, query] = queryAt < 0 ? [beforeHash, ''] : [beforeHash.slice(0, queryAt), beforeHash.slice(queryAt + 1)];
  const kept = query.split('&').filter((pair) => pair !== '' && !UTM_KEYS.has(pair.split('=', 1)[0]!));
  const ours = [
    `utm_source=${encodeURIComponent(utm.source)}`,
    `utm_medium=${encodeURIComponent(utm.medium)}`,
    `utm_campaign=${encodeURIComponent(utm.campaign)}`,
  ];
  return `${path}?${[...kept, ...ours].join('&')}${hash}`;
}

/** Banners are shown at most this wide (CSS pixels); the image is exported at 2× (docs/designer.md). */
const BANNER_MAX_WIDTH = 600;

/** The banner's HTML: a linked image, sized for Outlook's Word engine (width and height attributes). */
export function bannerHtml(v: { imageUrl: string; href: string; alt: string; width: number; height: number }): string {
  const scale = v.width > BANNER_MAX_WIDTH ? BANNER_MAX_WIDTH / v.width : 1;
  const width = Math.max(1, Math.round(v.width * scale));
  const height = Math.max(1, Math.round(v.height * scale));
  return (
    `<a href="${escapeHtml(v.href)}" target="_blank" style="text-decoration:none">` +
    `<img src="${escapeHtml(v.imageUrl)}" alt="${escapeHtml(v.alt)}" width="${width}" height="${height}" style="display:block;border:0;width:${width}px;height:${height}px"></a>`
  );
}
