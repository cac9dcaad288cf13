import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'rules', label: 'Rules', order: 51, group: 'Signatures', min: 'admin', page: () => import('./RulesPage.tsx') };
