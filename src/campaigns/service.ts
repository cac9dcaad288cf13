// Campaigns (docs/api.md, "Campaigns"): scheduled banners for an audience, one variant per person
// by weight. Writes here; the banner a render shows comes from `bannerFor`, read through the
// cache of the org's current campaigns (cache/namespaces.ts), with the status judged at render time
// by the injected clock, so a start or an end needs no write.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Caches } from '../cache/namespaces.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import { badRequest, notFound } from '../kernel/errors.ts';
import type { Db } from '../store/db.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { campaignsRepo } from '../store/repositories/campaigns.ts';
import { decodeCursor, toPage } from '../store/pagination.ts';
import type { CampaignRow, CampaignUtm, CampaignVariant, RuleWhen, UserRow } from '../store/schema.ts';
import type { RuleFacts, RuleService } from '../rules/module.ts';
import { MAX_LINK_CHARS, trackMark } from '../lib/track-mark.ts';
import { campaignStats } from './stats.ts';
import { bannerHtml, campaignFor, pickVariant, statusOf, withUtm } from './choose.ts';

export interface CampaignInput {
  name: string;
  startsAt: string;
  endsAt?: string | null | undefined;
  audience: RuleWhen;
  variants: CampaignVariant[];
  utm?: CampaignUtm | null | undefined;
}

/** The people whose drawn variant is remembered per campaign (renders of others draw it again). */
const PICKS_KEPT = 20_000;

/** A variant as stored: with its image's size, for the banner's width and height attributes. */
type StoredVariant = CampaignVariant & { width?: number; height?: number };

/** What a render shows of a campaign, and the part of the output cache key it accounts for. */
export interface CampaignBanner {
  key: string;
  campaignId: string;
  variant: number;
  banner: string;
  text: string;
  /** The track mark of the banner's link, in `banner` and `text`: a render that holds it shows the banner. */
  mark: string;
  /** Where the banner leads (its link with the UTM parameters): the destination its clicks count for. */
  destination: string;
}

export function toCampaign(row: CampaignRow, now: Date) {
  return {
    campaignId: row.id,
    name: row.name,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at ? row.ends_at.toISOString() : null,
    status: statusOf(row, now),
    audience: row.audience,
    variants: (row.variants as StoredVariant[]).map(({ imageId, link, alt, weight }) => ({ imageId, link, alt, weight })),
    utm: row.utm,
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type Campaign = ReturnType<typeof toCampaign>;

export function createCampaignService(deps: {
  db: Db;
  caches: Pick<Caches, 'campaigns' | 'invalidate'>;
  rules: Pick<RuleService, 'factsOf' | 'cachedFactsOf'>;
  clock: () => Date;
  baseUrl: string;
  /** Writes the impressions and clicks counted in memory, so stats read this instance's latest. */
  flushCounts?: () => Promise<void>;
}) {
  const { db, caches, clock } = deps;
  const imageUrl = (imageId: string) => `${deps.baseUrl.replace(/\/$/, '')}/v1/images/${imageId}`;
  // What a render of a campaign needs besides the person's facts, made once per loaded campaign row
  // (keyed by the cached row's variants), not on every render: each variant's banner (the same for
  // every person: the render makes its link theirs) and the variant each person drew (a SHA-256
  // each; the most recent people only). A change of the campaign is a new row, so a new entry.
  const made = new WeakMap<
    object,
    { banners: { banner: string; text: string; mark: string; destination: string }[]; picks: LRUCache<string, { index: number | null }> }
  >();
  function madeFor(campaign: CampaignRow) {
    let m = made.get(campaign.variants);
    if (!m) {
      const banners = (campaign.variants as StoredVariant[]).map((v) => {
        // Tracked like a design's links: the render resolves the mark (render/tracking.ts).
        const destination = withUtm(v.link, campaign.utm);
        const href = trackMark(destination) as string;
        return {
          banner: bannerHtml({ imageUrl: imageUrl(v.imageId), href, alt: v.alt, width: v.width ?? 600, height: v.height ?? 100 }),
          text: v.alt ? `${v.alt}: ${href}` : href,
          mark: href,
          destination,
        };
      });
      m = { banners, picks: new LRUCache({ max: PICKS_KEPT }) };
      made.set(campaign.variants, m);
    }
    return m;
  }
  function variantOf(campaign: CampaignRow, userId: string): number | null {
    const { picks } = madeFor(campaign);
    let pick = picks.get(userId);
    if (!pick) {
      pick = { index: pickVariant(campaign.id, userId, campaign.variants as StoredVariant[]) };
      picks.set(userId, pick);
    }
    return pick.index;
  }
  /** The banner of the campaign these facts put the person in, among the org's current ones (null: none, or its variants paused). */
  function bannerFrom(rows: readonly CampaignRow[], userId: string, facts: RuleFacts, now: Date): CampaignBanner | null {
    const campaign = campaignFor(rows, facts, now);
    if (!campaign) return null;
    const index = variantOf(campaign, userId);
    const banner = index === null ? undefined : madeFor(campaign).banners[index];
    if (index === null || !banner) return null;
    return { key: `${campaign.id}:${campaign.version}:${index}`, campaignId: campaign.id, variant: index, ...banner };
  }
  const needsGroups = (rows: readonly CampaignRow[]) => rows.some((c) => c.audience.groups !== undefined);

  /** Every variant's image must be one of the org's; their sizes are kept for the banner. */
  async function withSizes(orgId: string, variants: CampaignVariant[]): Promise<StoredVariant[]> {
    const sizes = await campaignsRepo.imageSizes(db, orgId, [...new Set(variants.map((v) => v.imageId))]);
    return variants.map((v, i) => {
      const size = sizes.get(v.imageId);
      if (!size) throw badRequest(`body.variants.${i}.imageId: not one of the organisation's images.`, { field: `body.variants.${i}.imageId` });
      return { ...v, ...size };
    });
  }

  function checkTimes(startsAt: Date, endsAt: Date | null) {
    if (endsAt && endsAt <= startsAt) {
      throw badRequest('body.endsAt: must be after startsAt (a campaign that has not started is called off with DELETE).', { field: 'body.endsAt' });
    }
  }

  /**
   * Each variant's link as its banner leads (the UTM parameters added, percent-encoded) stays within
   * the links' 2,000 characters, so that its click token stays within what the click route takes.
   */
  function checkLinks(variants: readonly Pick<CampaignVariant, 'link'>[], utm: CampaignUtm | null | undefined) {
    variants.forEach((v, i) => {
      if (utm && withUtm(v.link, utm).length > MAX_LINK_CHARS) {
        throw badRequest(`body.variants.${i}.link: with the campaign's UTM parameters it is over ${MAX_LINK_CHARS} characters.`, {
          field: `body.variants.${i}.link`,
        });
      }
    });
  }

  return {
    async create(ctx: WriteContext, input: CampaignInput): Promise<Campaign> {
      const startsAt = new Date(input.startsAt);
      const endsAt = input.endsAt ? new Date(input.endsAt) : null;
      checkTimes(startsAt, endsAt);
      checkLinks(input.variants, input.utm);
      const variants = await withSizes(ctx.orgId, input.variants);
      const row = await db.transaction().execute(async (tx) => {
        const made = await campaignsRepo.insert(tx, {
          id: randomUUID(),
          org_id: ctx.orgId,
          name: input.name,
          starts_at: startsAt,
          ends_at: endsAt,
          audience: JSON.stringify(input.audience),
          variants: JSON.stringify(variants),
          utm: input.utm ? JSON.stringify(input.utm) : null,
          // Over before it was made: it never runs, nothing to announce (announce.ts).
          ...(statusOf({ starts_at: startsAt, ends_at: endsAt }, clock()) === 'ended' ? { announced_status: 'ended' as const } : {}),
        });
        await recordAudit(tx, ctx, { action: 'campaign.create', targetId: made.id, changes: changedFields(input) });
        return made;
      });
      caches.invalidate.campaignsChanged(ctx.orgId);
      return toCampaign(row, clock());
    },

    async list(orgId: string, page: { limit: number; cursor?: string | undefined }) {
      const rows = await campaignsRepo.page(db, orgId, decodeCursor(page.cursor), page.limit);
      const now = clock();
      return toPage(
        rows,
        page.limit,
        (r) => r.seq,
        (r) => toCampaign(r, now),
      );
    },

    async get(orgId: string, campaignId: string): Promise<Campaign> {
      const row = await campaignsRepo.find(db, orgId, campaignId);
      if (!row) throw notFound('Campaign');
      return toCampaign(row, clock());
    },

    async update(ctx: WriteContext, campaignId: string, check: VersionCheck, patch: Partial<CampaignInput>): Promise<Campaign> {
      const current = await campaignsRepo.find(db, ctx.orgId, campaignId);
      if (!current) throw notFound('Campaign');
      const startsAt = patch.startsAt ? new Date(patch.startsAt) : current.starts_at;
      const endsAt = patch.endsAt === undefined ? current.ends_at : patch.endsAt ? new Date(patch.endsAt) : null;
      checkTimes(startsAt, endsAt);
      checkLinks(patch.variants ?? current.variants, patch.utm === undefined ? current.utm : patch.utm);
      const variants = patch.variants ? await withSizes(ctx.orgId, patch.variants) : undefined;
      const row = await db.transaction().execute(async (tx) => {
        const updated = await campaignsRepo.update(tx, ctx.orgId, campaignId, check, {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.startsAt !== undefined ? { starts_at: startsAt } : {}),
          ...(patch.endsAt !== undefined ? { ends_at: endsAt } : {}),
          ...(patch.audience !== undefined ? { audience: JSON.stringify(patch.audience) } : {}),
          ...(variants ? { variants: JSON.stringify(variants) } : {}),
          ...(patch.utm !== undefined ? { utm: patch.utm ? JSON.stringify(patch.utm) : null } : {}),
        });
        if (!updated) throw versionMismatch('Campaign', await campaignsRepo.find(tx, ctx.orgId, campaignId), check);
        await recordAudit(tx, ctx, { action: 'campaign.update', targetId: campaignId, changes: changedFields(patch) });
        return updated;
      });
      caches.invalidate.campaignsChanged(ctx.orgId);
      return toCampaign(row, clock());
    },

    async remove(ctx: WriteContext, campaignId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await campaignsRepo.softDelete(tx, ctx.orgId, campaignId))) throw notFound('Campaign');
        await recordAudit(tx, ctx, { action: 'campaign.delete', targetId: campaignId });
      });
      caches.invalidate.campaignsChanged(ctx.orgId);
    },

    /** Stats from `from` to `to` (UTC dates, inclusive; by default the campaign's first day to today). */
    async stats(orgId: string, campaignId: string, range: { from?: string | undefined; to?: string | undefined }) {
      const row = await campaignsRepo.find(db, orgId, campaignId);
      if (!row) throw notFound('Campaign');
      const campaign = toCampaign(row, clock());
      const from = range.from ?? campaign.startsAt.slice(0, 10);
      const today = clock().toISOString().slice(0, 10);
      // A campaign not started yet has no day before its first: by default, that day alone.
      const to = range.to ?? (today < from ? from : today);
      if (to < from) throw badRequest(`query.to: must not be before ${range.from ? 'from' : "the campaign's first day"}.`, { field: 'query.to' });
      await deps.flushCounts?.();
      return { campaign, ...(await campaignStats(db, campaign, orgId, from, to)) };
    },

    /**
     * `bannerFor`'s answer from what the caches hold, without waiting (a warm render's path:
     * render/service.ts); undefined when the org's campaigns or the groups an audience needs are not held.
     */
    cachedBannerFor(user: Pick<UserRow, 'id' | 'org_id' | 'email' | 'role' | 'department' | 'attributes'>): CampaignBanner | null | undefined {
      const loaded = caches.campaigns.peek(user.org_id);
      if (loaded === undefined) return undefined;
      const now = clock();
      const rows = loaded?.rows ?? [];
      if (!rows.some((c) => statusOf(c, now) === 'active')) return null;
      const facts = deps.rules.cachedFactsOf(user, needsGroups(rows));
      return facts ? bannerFrom(rows, user.id, facts, now) : undefined;
    },

    /** The banner this user sees now, or null (no active campaign for them, or every variant paused). */
    async bannerFor(user: Pick<UserRow, 'id' | 'org_id' | 'email' | 'role' | 'department' | 'attributes'>): Promise<CampaignBanner | null> {
      const now = clock();
      const loaded = await caches.campaigns.get(user.org_id, async () => ({ rows: await campaignsRepo.current(db, user.org_id, now) }));
      const rows = loaded?.rows ?? [];
      if (!rows.some((c) => statusOf(c, now) === 'active')) return null;
      return bannerFrom(rows, user.id, await deps.rules.factsOf(user, needsGroups(rows)), now);
    },
  };
}

export type CampaignService = ReturnType<typeof createCampaignService>;
