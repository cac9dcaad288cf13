import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'audit', label: 'Staff audit', order: 40, page: () => import('./StaffAuditPage.tsx') };
