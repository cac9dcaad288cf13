// Rendering a user's signature: Liquid templates on a pool of worker threads, cached by version.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { OrgService } from '../orgs/module.ts';
import type { UserService } from '../users/module.ts';
import type { RuleService } from '../rules/module.ts';
import type { CampaignsModule } from '../campaigns/module.ts';
import type { ClickService } from '../clicks/module.ts';
import { createRenderPool, type RenderPool } from './pool.ts';
import { createRenderService, type RenderedListener, type RenderService } from './service.ts';
import { renderRoutes } from './routes.ts';
import { signatureRoutes } from './signature-routes.ts';

export { renderedSchema } from './schemas.ts';
export { hasMarker, markSignature } from './marker.ts';

export type { RenderPool, RenderService };
export type { Rendered } from '../kernel/rendered.ts';

export function renderModule(
  core: Core,
  needs: { orgs: Module<OrgService>; users: Module<UserService>; rules: Module<RuleService>; campaigns: CampaignsModule; clicks: Module<ClickService> },
  opts: { pool?: RenderPool | undefined; onRendered?: RenderedListener } = {},
): Module<RenderService> {
  const { config } = core;
  // A pool handed in (tests share one) stays the caller's.
  const pool = opts.pool ?? createRenderPool({ threads: config.renderThreads, idleMs: config.renderThreadIdleMs });
  core.metrics.observeRenderThreads(() => pool.threads());
  const render = createRenderService({
    db: core.db,
    caches: core.caches,
    orgs: needs.orgs.service,
    rules: needs.rules.service,
    campaigns: needs.campaigns.service,
    countImpression: needs.campaigns.countImpression,
    trackUrl: needs.clicks.service.trackUrl,
    pixelCampaign: needs.clicks.service.pixelCampaign,
    pool,
    baseUrl: config.baseUrl,
    renderLimitBytes: config.renderLimitBytes,
    metrics: core.metrics,
    ...(opts.onRendered ? { onRendered: opts.onRendered } : {}),
  });
  const users = needs.users.service;
  return {
    name: 'render',
    service: render,
    api: ({ guards, billing }) => [renderRoutes({ guards, billing, render, users }), signatureRoutes({ guards, billing, render, users })],
    ...(opts.pool ? {} : { close: () => pool.close() }),
  };
}
