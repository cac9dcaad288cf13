// Metrics: the Prometheus registry is the core's (core/core.ts makes it); this module serves it
// (GET /metrics). It takes the registry rather than the core, which is built from this folder: the
// result is a Module (core/module.ts) by its shape.
import type { Metrics } from './metrics.ts';
import { metricsRoutes } from './routes.ts';

export function metricsModule(deps: { metrics: Metrics; token: string | undefined }) {
  return { name: 'metrics', service: deps.metrics, public: [metricsRoutes(deps)] };
}
