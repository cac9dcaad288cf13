import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'events', label: 'Payment events', order: 20, page: () => import('./EventsPage.tsx') };
