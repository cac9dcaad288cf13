import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'integrations',
  label: 'Integrations',
  order: 70,
  group: 'Connections',
  min: 'admin',
  page: () => import('./IntegrationsPage.tsx'),
};
