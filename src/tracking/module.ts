// Open tracking: the pixel each signature carries (counted behind, in batches) and the org's counts.
import type { Core } from '../core/core.ts';
import { publicRouteThrottle } from '../ratelimit/hook.ts';
import type { Module } from '../core/module.ts';
import { opensRepo } from '../store/repositories/opens.ts';
import { OpenCounter } from './open-counter.ts';
import { createTrackingService, type TrackingService } from './service.ts';
import { opensRoutes, pixelRoutes } from './routes.ts';

export type { OpenCounter, TrackingService };

export type TrackingModule = Module<TrackingService> & { opens: OpenCounter };

export function trackingModule(core: Core, needs: { campaignOpen?: (c: string, userId: string) => void } = {}): TrackingModule {
  const { db } = core;
  const opens = new OpenCounter((counts) => opensRepo.add(db, counts), core.logger);
  const tracking = createTrackingService({ db, counter: opens, clock: core.clock });
  const pixelThrottle = publicRouteThrottle(core, 'pixel');
  return {
    name: 'tracking',
    service: tracking,
    opens,
    api: ({ guards }) => [opensRoutes({ guards, tracking })],
    public: [pixelRoutes({ throttle: pixelThrottle, tracking, ...(needs.campaignOpen ? { campaignOpen: needs.campaignOpen } : {}) })],
    close: () => opens.close(),
  };
}
