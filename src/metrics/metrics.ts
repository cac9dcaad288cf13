// The service's Prometheus metrics (prom-client): one Registry per service instance (the tests run
// several in one process), created with the dependencies and served at GET /metrics.
//
// To add a metric elsewhere, register it on this registry, e.g.
//   new Counter({ name: 'mail_sent_total', help: '…', labelNames: ['outcome'], registers: [deps.metrics.registry] })
// and keep label values to small fixed sets (never an id, an email or a raw URL).
import type { PoolStats } from '../store/db.ts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type WebhookOutcome = 'processed' | 'pending' | 'duplicate' | 'failed' | 'invalid_signature' | 'bad_request' | 'unconfigured';
// The queue's outcomes (src/jobs/queue.ts: succeeded, retried, failed, released, lost, deferred).
export type JobOutcome = string;

export type { PoolStats };

export interface Metrics {
  readonly registry: Registry;
  /** A finished HTTP request; `route` is the route's pattern (`/v1/orgs/:orgId`), never the URL. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  webhookEvent(outcome: WebhookOutcome): void;
  renderCache(hit: boolean): void;
  /** A background job's attempt ended (the job queue calls this). */
  jobFinished(kind: string, outcome: JobOutcome): void;
  /** Reports the database pool's use at each scrape. */
  observeDatabasePool(read: () => PoolStats): void;
  /** Reports the render threads running at each scrape. */
  observeRenderThreads(read: () => number): void;
  /** The exposition: content type and text. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Process CPU, memory, GC, handles, and event-loop lag (nodejs_eventloop_lag_seconds and its
  // percentiles, from monitorEventLoopDelay).
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'webhook_events_total',
    help: 'Payment-provider webhook deliveries, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const renderCache = new Counter({
    name: 'render_cache_requests_total',
    help: 'Rendered-signature cache lookups, by result (hit or miss).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const renderHits = renderCache.labels('hit');
  const renderMisses = renderCache.labels('miss');
  // Both series exist from the start, so a rate() over them is defined before the first render.
  renderHits.inc(0);
  renderMisses.inc(0);
  const jobs = new Counter({
    name: 'jobs_total',
    help: 'Background job attempts that ended, by kind and outcome (succeeded, failed, retried).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });

  // Label children by key: prom-client hashes a label object on every call, this a short string.
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route' | 'status'> }>();

  return {
    registry,
    httpRequest(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        const labels = { method, route, status: String(status) };
        child = { count: requests.labels(labels), time: duration.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
    },
    webhookEvent(outcome) {
      webhooks.labels(outcome).inc();
    },
    renderCache(hit) {
      (hit ? renderHits : renderMisses).inc();
    },
    jobFinished(kind, outcome) {
      jobs.labels(kind, outcome).inc();
    },
    observeDatabasePool(read) {
      const gauge = (name: string, help: string, pick: (s: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(pick(read()));
          },
        });
      gauge('db_pool_connections', 'Database connections open.', (s) => s.total);
      gauge('db_pool_connections_idle', 'Database connections open and idle.', (s) => s.idle);
      gauge('db_pool_waiting', 'Callers waiting for a database connection.', (s) => s.waiting);
      gauge('db_pool_max', 'The most database connections the pool opens.', (s) => s.max);
    },
    observeRenderThreads(read) {
      new Gauge({
        name: 'render_threads',
        help: 'Render worker threads running (one with no work for RENDER_THREAD_IDLE_MS stops).',
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
