import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'webhooks',
  label: 'Webhooks',
  order: 73,
  group: 'Connections',
  min: 'admin',
  page: () => import('./WebhooksPage.tsx'),
};
