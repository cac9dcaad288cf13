import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'signature', label: 'My signature', order: 100, page: () => import('./SignaturePage.tsx') };
