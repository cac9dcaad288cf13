import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'templates',
  label: 'Templates',
  order: 50,
  group: 'Signatures',
  min: 'admin',
  page: () => import('./TemplatesPage.tsx'),
};
