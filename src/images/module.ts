// Images of an org: uploaded through the API, served to mail clients by a public URL.
import { byAddress, type Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { publicThrottle } from '../ratelimit/hook.ts';
import { createImageService, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, type ImageService } from './service.ts';
import { imageRoutes, publicImageRoutes } from './routes.ts';

export { IMAGE_TYPES } from './service.ts';

export { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, type ImageService };

export function imagesModule(core: Core): Module<ImageService> {
  const images = createImageService({ db: core.db, baseUrl: core.config.baseUrl, caches: core.caches });
  return {
    name: 'images',
    service: images,
    api: ({ guards, billing }) => [imageRoutes({ guards, billing, images })],
    // Images are fetched by mail clients, without credentials: outside the authenticated scope.
    public: [
      publicImageRoutes({
        throttle: publicThrottle(byAddress(core), core.refusal, { limiter: core.limiters.asset, limit: core.config.assetRateLimit.burst, scope: 'asset', bucketOf: () => 'asset' }),
        images,
      }),
    ],
  };
}
