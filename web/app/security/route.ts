import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'security', label: 'Security', order: 120, group: 'You', page: () => import('./SecurityPage.tsx') };
