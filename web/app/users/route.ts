import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'users', label: 'Users', order: 60, group: 'Organisation', min: 'admin', page: () => import('./UsersPage.tsx') };
