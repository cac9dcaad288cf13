// The designer: the design document and its compiler (used by templates through this face), and
// the pictures its blocks show (social icons, the starters' thumbnails), served without credentials.
import type { Core } from '../core/core.ts';
import { publicRouteThrottle } from '../ratelimit/hook.ts';
import type { Module } from '../core/module.ts';
import { pictureRoutes } from './picture-routes.ts';

export { designSchema, type Design } from './design.ts';
export { compileDesign, type Compiled, type DesignImage } from './compile.ts';
export { STARTER_DESIGNS, type StarterDesign } from './starters.ts';

export function designerModule(core: Core): Module<undefined> {
  return {
    name: 'designer',
    service: undefined,
    // The assets' buckets: the caller's address, then the stage-wide one of images.
    public: [
      pictureRoutes({
        throttle: publicRouteThrottle(core, 'asset'),
      }),
    ],
  };
}
