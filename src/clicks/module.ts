// Tracked links: the signed click route (public: the per-address bucket, then the click bucket),
// clicks written behind in batches, and old addresses truncated to their network every hour.
import { randomBytes } from 'node:crypto';
import type { Core } from '../core/core.ts';
import { publicRouteThrottle } from '../ratelimit/hook.ts';
import type { Module } from '../core/module.ts';
import { clickRoutes } from './routes.ts';
import { createClickService, startTruncatingAddresses, type ClickService } from './service.ts';
import { clickKey } from './token.ts';
import { SharedRecentClicks } from './timing.ts';

export type { ClickService };
export type { ClickTarget, PixelCampaign } from './token.ts';

export function clicksModule(core: Core): Module<ClickService> {
  const { config, db, clock, logger } = core;
  // Signed under a key derived from SECRETS_KEY (the embedded mode generates one); without any, a
  // key for this process's life (its links stop resolving after a restart).
  const key = clickKey(config.secretsKey ?? randomBytes(32).toString('base64'));
  // The timing rule's recent clicks: shared by the instances in Redis when there is one (timing.ts).
  const timing = core.redis ? new SharedRecentClicks(core.redis, `sigsvc:${config.stage}:clicks:`, logger) : undefined;
  const clicks = createClickService({ db, key, baseUrl: config.baseUrl, clock, logger, ...(timing ? { timing } : {}) });
  const throttle = publicRouteThrottle(core, 'click');
  return {
    name: 'clicks',
    service: clicks,
    public: [clickRoutes({ throttle, clicks })],
    timers: [() => startTruncatingAddresses({ db, logger, clock, retentionDays: config.clickAddressRetentionDays })],
    close: () => clicks.close(),
  };
}
