import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'profile', label: 'My profile', order: 110, group: 'You', page: () => import('./ProfilePage.tsx') };
