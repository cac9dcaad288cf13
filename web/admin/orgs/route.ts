import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'orgs', label: 'Organisations', order: 10, page: () => import('./OrgsSection.tsx') };
