import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'signature', label: 'My signature', order: 100, group: 'You', page: () => import('./SignaturePage.tsx') };
