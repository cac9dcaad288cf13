import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = {
  path: 'campaigns',
  label: 'Campaigns',
  order: 52,
  group: 'Signatures',
  min: 'admin',
  page: () => import('./CampaignsPage.tsx'),
};
