// Campaigns: scheduled banners for an audience, their impressions (counted behind, in batches) and
// stats, and the outbound webhook events of their starts and ends (announce.ts). Render asks `bannerFor` and counts impressions through `countImpression`; the pixel
// attributes opens through `campaignOpen`.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { every } from '../lib/every.ts';
import type { RuleService } from '../rules/module.ts';
import type { ClickService } from '../clicks/module.ts';
import { campaignStatsRepo } from '../store/repositories/campaign-stats.ts';
import { ImpressionCounter } from './impressions.ts';
import { campaignRoutes, campaignStatsRoutes } from './routes.ts';
import { createCampaignService, type CampaignService } from './service.ts';
import { ANNOUNCE_EVERY_MS, announceTransitions, type EmitEvents } from './announce.ts';

export type { CampaignService, CampaignBanner } from './service.ts';

export type CampaignsModule = Module<CampaignService> & {
  countImpression: (orgId: string, campaignId: string, variant: number) => void;
  /** A pixel open carrying a campaign's signed `c`: an impression of it (a forged one counts nothing). */
  campaignOpen: (c: string, userId: string) => void;
  /** One tick of the `campaign.started|ended` announcer (announce.ts): tests call it. */
  announce: () => Promise<number>;
};

export interface CampaignsTuning {
  /** Tests: how often the announcer looks for starts and ends (10 s). */
  announceEveryMs?: number;
}

export function campaignsModule(
  core: Core,
  needs: { rules: Module<RuleService>; clicks: Module<ClickService>; emitEvents: EmitEvents },
  tuning: CampaignsTuning = {},
): CampaignsModule {
  const { db, clock, config } = core;
  const clicks = needs.clicks.service;
  const impressions = new ImpressionCounter((counts) => campaignStatsRepo.addImpressions(db, counts), core.logger);
  const campaigns = createCampaignService({
    db,
    caches: core.caches,
    rules: needs.rules.service,
    clock,
    baseUrl: config.baseUrl,
    flushCounts: async () => {
      await Promise.all([impressions.flush(), clicks.flush()]);
    },
  });
  const announce = () => announceTransitions(db, needs.emitEvents, clock());
  return {
    name: 'campaigns',
    announce,
    service: campaigns,
    countImpression: (orgId, campaignId, variant) => impressions.record(orgId, campaignId, variant, clock()),
    campaignOpen: (c, userId) => {
      const p = clicks.campaignOfPixel(c, userId);
      if (p) impressions.record(p.orgId, p.campaignId, p.variant, clock());
    },
    api: ({ guards, billing }) => [campaignRoutes({ guards, billing, campaigns }), campaignStatsRoutes({ guards, campaigns })],
    // On every instance, like the directories' scheduler: the claim decides which announces.
    timers: [
      () => every(tuning.announceEveryMs ?? ANNOUNCE_EVERY_MS, announce, { logger: core.logger, message: 'announcing campaign starts and ends failed' }),
    ],
    close: () => impressions.close(),
  };
}
