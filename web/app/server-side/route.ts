import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'server-side',
  label: 'Server-side (all mail clients)',
  order: 72,
  group: 'Connections',
  min: 'admin',
  page: () => import('./ServerSidePage.tsx'),
};
