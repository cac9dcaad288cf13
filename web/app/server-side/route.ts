import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'server-side',
  label: 'Server-side (all mail clients)',
  order: 78,
  min: 'admin',
  page: () => import('./ServerSidePage.tsx'),
};
