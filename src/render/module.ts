// Rendering a user's signature: Liquid templates on a pool of worker threads, cached by version.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { OrgService } from '../orgs/module.ts';
import type { UserService } from '../users/module.ts';
import { createRenderPool, type RenderPool } from './pool.ts';
import { createRenderService, type RenderService } from './service.ts';
import { renderRoutes } from './routes.ts';
import { signatureRoutes } from './signature-routes.ts';

export { renderedSchema } from './schemas.ts';

export type { RenderPool, RenderService };
export type { Rendered } from '../kernel/rendered.ts';

export function renderModule(core: Core, needs: { orgs: Module<OrgService>; users: Module<UserService> }, opts: { pool?: RenderPool | undefined } = {}): Module<RenderService> {
  const { config } = core;
  // A pool handed in (tests share one) stays the caller's.
  const pool = opts.pool ?? createRenderPool({ threads: config.renderThreads });
  const render = createRenderService({
    db: core.db,
    caches: core.caches,
    orgs: needs.orgs.service,
    pool,
    baseUrl: config.baseUrl,
    renderLimitBytes: config.renderLimitBytes,
    metrics: core.metrics,
  });
  const users = needs.users.service;
  return {
    name: 'render',
    service: render,
    api: ({ guards, billing }) => [renderRoutes({ guards, billing, render }), signatureRoutes({ guards, billing, render, users })],
    ...(opts.pool ? {} : { close: () => pool.close() }),
  };
}
