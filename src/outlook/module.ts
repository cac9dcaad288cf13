// The Outlook add-in: its key, its manifest, and the signature route it calls (throttled on its own).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { outlookRepo } from '../store/repositories/outlook.ts';
import { throttle } from '../ratelimit/hook.ts';
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
  const addinThrottle = throttle(core.limiters.addin, { limit: config.addinRateLimit.burst, retryAfterS: config.retryAfterS, bucketOf: () => 'addin' });
  return {
    name: 'outlook',
    service: outlook,
    api: ({ guards, billing }) => [outlookRoutes({ guards, billing, outlook })],
    public: [addinRoutes({ throttle: addinThrottle, outlook, baseUrl: config.baseUrl, fetchTimeoutMs: config.addinFetchTimeoutMs })],
    close: () => recorder.close(),
  };
}
