import type { FeatureRoute } from '../../shared/feature.ts';

export const route: FeatureRoute = { path: 'gateway-errors', label: 'Gateway errors', order: 35, page: () => import('./GatewayErrorsPage.tsx') };
