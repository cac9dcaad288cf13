import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'users', label: 'Users', order: 40, min: 'admin', page: () => import('./UsersPage.tsx') };
