import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'microsoft-365',
  label: 'Microsoft 365',
  order: 71,
  group: 'Connections',
  min: 'admin',
  page: () => import('./Microsoft365Page.tsx'),
};
