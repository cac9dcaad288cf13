// Images of an org: uploaded through the API, served to mail clients by a public URL.
import type { Core } from '../core/core.ts';
import { publicRouteThrottle } from '../ratelimit/hook.ts';
import type { Module } from '../core/module.ts';
import { createImageService, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, type ImageService } from './service.ts';
import { imageRoutes, publicImageRoutes } from './routes.ts';
import { openImageFiles } from './files.ts';

export { IMAGE_TYPES } from './service.ts';
export { sniffType } from './dimensions.ts';

export { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, type ImageService };
/** What a capability that lets go of users' photos is given: the images service's `releaseAfter`. */
export type ReleasePhoto = ImageService['releaseAfter'];

/** Async: in the embedded store, image bytes the database still holds are moved to files first (./files.ts). */
export async function imagesModule(core: Core): Promise<Module<ImageService>> {
  const files = await openImageFiles(core.database, core.logger);
  const images = createImageService({
    db: core.db,
    baseUrl: core.config.baseUrl,
    caches: core.caches,
    files,
    maxBytesPerOrg: core.config.imagesMaxBytesPerOrg,
    logger: core.logger,
  });
  return {
    name: 'images',
    service: images,
    api: ({ guards, billing }) => [imageRoutes({ guards, billing, images })],
    // Images are fetched by mail clients, without credentials: outside the authenticated scope.
    public: [
      publicImageRoutes({
        throttle: publicRouteThrottle(core, 'asset'),
        images,
      }),
    ],
  };
}
