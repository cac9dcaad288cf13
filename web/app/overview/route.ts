import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'overview', label: 'Overview', order: 5, min: 'admin', page: () => import('./OverviewPage.tsx') };
