import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'audit', label: 'Audit log', order: 62, group: 'Organisation', min: 'admin', page: () => import('./AuditPage.tsx') };
