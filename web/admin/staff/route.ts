import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'staff', label: 'Staff', order: 30, page: () => import('./StaffPage.tsx') };
