import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'profile', label: 'My profile', order: 110, page: () => import('./ProfilePage.tsx') };
