import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'integrations', label: 'Integrations', order: 75, min: 'admin', page: () => import('./IntegrationsPage.tsx') };
