import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'campaigns', label: 'Campaigns', order: 36, min: 'admin', page: () => import('./CampaignsPage.tsx') };
