import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'audit', label: 'Audit log', order: 80, min: 'admin', page: () => import('./AuditPage.tsx') };
