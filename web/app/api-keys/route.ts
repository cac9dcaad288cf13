import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'api-keys',
  label: 'API keys',
  order: 61,
  group: 'Organisation',
  min: 'admin',
  page: () => import('./ApiKeysPage.tsx'),
};
