import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'images', label: 'Images', order: 53, group: 'Signatures', min: 'admin', page: () => import('./ImagesPage.tsx') };
