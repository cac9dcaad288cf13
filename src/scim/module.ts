// SCIM 2.0 provisioning (Okta, Entra ID): the org's SCIM token under /v1/orgs/{orgId}/integrations/scim,
// and the SCIM protocol under {base_url}/scim/v2, where the token names the org. SCIM clients carry
// that token, not our credentials, so their routes sit outside the authenticated scope, with their
// own per-org throttle (routes.ts), and count against no quota.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { requireFreeSeat } from '../billing/module.ts';
import type { ImageService } from '../images/module.ts';
import { createScimService, type ScimService } from './service.ts';
import { scimAdminRoutes } from './admin-routes.ts';
import { SCIM_PREFIX, scimRoutes } from './routes.ts';

export type { ScimService };

export function scimModule(core: Core, needs: { images: Module<ImageService> }): Module<ScimService> {
  const { config } = core;
  const images = needs.images.service;
  const scim = createScimService({
    db: core.db,
    invalidate: core.caches.invalidate,
    seatCheck: requireFreeSeat,
    baseUrl: config.baseUrl,
    clock: core.clock,
    releasePhoto: images.releaseAfter,
  });
  const protocol = scimRoutes({ scim, limiter: core.limiters.scim, retryAfterS: config.retryAfterS });
  return {
    name: 'scim',
    service: scim,
    api: ({ guards, billing }) => [scimAdminRoutes({ guards, billing, scim })],
    public: [
      async (app) => {
        await app.register(protocol, { prefix: SCIM_PREFIX });
      },
    ],
  };
}
