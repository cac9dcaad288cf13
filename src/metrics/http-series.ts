// The two metrics of every answer, `http_requests_total` and `http_request_duration_seconds`, kept
// here and read by prom-client's registry when it is scraped. Written by hand because prom-client's
// labelled `inc()` and `observe()` check the label object and hash it into a key on every call (its
// `labels()` children do the same): 1.4 µs a request in a loop, and the answers' metrics were
// 3–5 µs of every request's CPU under the bench's load (BENCHMARKS.md, "The answers' metrics").
// Here an answer is one Map lookup by a short key and three additions; the work of the exposition
// (cumulative buckets, label objects) is done at the scrape. The registry reads these two as it
// reads its own Counter and Histogram: `get()` answers the same shape, so the text is the same.
import type { Registry } from 'prom-client';

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative: index i counts values ≤ bounds[i] and > bounds[i - 1]. */
  perBucket: number[];
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class HttpSeries {
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, Series>();

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: this.#bounds.map(() => 0) };
      this.#series.set(key, series);
    }
    series.count++;
    series.sum += seconds;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= (bounds[i] as number)) {
        series.perBucket[i]!++;
        break;
      }
    }
  }

  /** Registers `http_requests_total` (a counter) and `http_request_duration_seconds` (a histogram) on `registry`. */
  register(registry: Registry, names: { counter: [string, string]; histogram: [string, string] }): void {
    const [counterName, counterHelp] = names.counter;
    const [histogramName, histogramHelp] = names.histogram;
    const counter = this.#metric(counterName, counterHelp, 'counter', () => [...this.#series.values()].map((s) => ({ labels: s.labels, value: s.count })));
    const histogram = this.#metric(histogramName, histogramHelp, 'histogram', () => {
      const values: MetricValue[] = [];
      for (const s of this.#series.values()) {
        let cumulative = 0;
        this.#bounds.forEach((le, i) => {
          cumulative += s.perBucket[i] ?? 0;
          values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${histogramName}_bucket` });
        });
        values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${histogramName}_bucket` });
        values.push({ labels: s.labels, value: s.sum, metricName: `${histogramName}_sum` });
        values.push({ labels: s.labels, value: s.count, metricName: `${histogramName}_count` });
      }
      return values;
    });
    // The registry takes any metric that answers `get()` as its own classes do (registry.js reads
    // name, help, type and values); its TypeScript types name only prom-client's classes.
    registry.registerMetric(counter as unknown as Parameters<Registry['registerMetric']>[0]);
    registry.registerMetric(histogram as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  #metric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) {
    return {
      name,
      help,
      type,
      aggregator: 'sum' as const,
      get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
      reset: () => this.#series.clear(),
    };
  }
}
