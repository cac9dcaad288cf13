// The service's Prometheus metrics (prom-client): one Registry per service instance (the tests run
// several in one process), created with the dependencies and served at GET /metrics.
//
// To add a metric elsewhere, register it on this registry, e.g.
//   new Counter({ name: 'mail_sent_total', help: '…', labelNames: ['outcome'], registers: [deps.metrics.registry] })
// and keep label values to small fixed sets (never an id, an email or a raw URL).
import type { PoolStats } from '../store/db.ts';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { HttpSeries } from './http-series.ts';

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

  const http = new HttpSeries(DURATION_BUCKETS);
  http.register(registry, {
    counter: ['http_requests_total', 'HTTP requests answered, by method, route pattern and status.'],
    histogram: ['http_request_duration_seconds', 'Time from a request arriving to its answer being sent, by method, route pattern and status.'],
  });
  const webhooks = new Counter({
    name: 'webhook_events_total',
    help: 'Payment-provider webhook deliveries, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Counted in two numbers on the warm render's path and added to the counter at each scrape:
  // a labelled inc() hashes its labels on every call (./http-series.ts says what that costs).
  const renders = { hit: 0, miss: 0 };
  const rendersReported = { hit: 0, miss: 0 };
  const renderCache = new Counter({
    name: 'render_cache_requests_total',
    help: 'Rendered-signature cache lookups, by result (hit or miss); a refusal remembered for the same versions is a hit.',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      for (const result of ['hit', 'miss'] as const) {
        this.inc({ result }, renders[result] - rendersReported[result]);
        rendersReported[result] = renders[result];
      }
    },
  });
  // Both series exist from the start, so a rate() over them is defined before the first render.
  renderCache.inc({ result: 'hit' }, 0);
  renderCache.inc({ result: 'miss' }, 0);
  const jobs = new Counter({
    name: 'jobs_total',
    help: 'Background job attempts that ended, by kind and outcome (succeeded, failed, retried).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });

  return {
    registry,
    httpRequest(method, route, status, seconds) {
      http.record(method, route, status, seconds);
    },
    webhookEvent(outcome) {
      webhooks.labels(outcome).inc();
    },
    renderCache(hit) {
      renders[hit ? 'hit' : 'miss']++;
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
