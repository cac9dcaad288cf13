import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'images', label: 'Images', order: 60, min: 'admin', page: () => import('./ImagesPage.tsx') };
