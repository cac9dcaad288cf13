// The Outlook add-in: its key, its manifest, and the signature route it calls (throttled on its own).
import { byAddress, type Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { outlookRepo } from '../store/repositories/outlook.ts';
import { publicThrottle, throttle } from '../ratelimit/hook.ts';
import type { OrgService } from '../orgs/module.ts';
import type { RenderService } from '../render/module.ts';
import type { SecretBox } from '../secrets/module.ts';
import { FetchRecorder } from './fetch-recorder.ts';
import { createOutlookService, type OutlookService } from './service.ts';
import { addinRoutes, outlookRoutes } from './routes.ts';

export type { OutlookService };

export function outlookModule(
  core: Core,
  needs: { orgs: Module<OrgService>; render: Module<RenderService>; secrets: Module<SecretBox> },
): Module<OutlookService> {
  const { config, db } = core;
  const recorder = new FetchRecorder((fetches) => outlookRepo.recordFetches(db, fetches), core.logger);
  const outlook = createOutlookService({
    db,
    caches: core.caches,
    orgs: needs.orgs.service,
    render: needs.render.service,
    secrets: needs.secrets.service,
    recorder,
    clock: core.clock,
    baseUrl: config.baseUrl,
    appUrl: config.appUrl,
  });
  // The caller's address first; the org's bucket once the add-in's key named the org.
  const throttles = {
    byAddress: publicThrottle(byAddress(core), core.refusal),
    byOrg: throttle(core.limiters.addin, {
      limit: config.addinRateLimit.burst,
      refusal: core.refusal,
      scope: 'addin',
      bucketOf: (request) => `addin:${request.addinOrgId}`,
    }),
  };
  return {
    name: 'outlook',
    service: outlook,
    api: ({ guards, billing }) => [outlookRoutes({ guards, billing, outlook })],
    public: [addinRoutes({ throttles, outlook, baseUrl: config.baseUrl, fetchTimeoutMs: config.addinFetchTimeoutMs })],
    close: () => recorder.close(),
  };
}
