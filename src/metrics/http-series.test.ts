import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { HttpSeries } from './http-series.ts';

const BOUNDS = [0.001, 0.01, 0.1, 1, 10];
const NAMES = {
  counter: ['http_requests_total', 'HTTP requests answered.'] as [string, string],
  histogram: ['http_request_duration_seconds', 'Time to answer.'] as [string, string],
};
// Values on the bounds (a bucket counts values ≤ its bound), between them, above the last, and zero.
const ANSWERS: [string, string, number, number][] = [
  ['GET', '/v1/orgs/:orgId', 200, 0.001],
  ['GET', '/v1/orgs/:orgId', 200, 0.0011],
  ['GET', '/v1/orgs/:orgId', 200, 0],
  ['POST', '/v1/orgs/:orgId/render/:userId', 200, 0.05],
  ['GET', '/v1/orgs/:orgId', 404, 10],
  ['GET', 'unmatched', 404, 12.5],
  ['GET', '/v1/orgs/:orgId', 200, 0.73],
];

test("the answers' series expose (GET /metrics) exactly what prom-client's own Counter and Histogram expose for the same answers", async () => {
  const ours = new Registry();
  const series = new HttpSeries(BOUNDS);
  series.register(ours, NAMES);

  const theirs = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const counter = new Counter({ name: NAMES.counter[0], help: NAMES.counter[1], labelNames, registers: [theirs] });
  const histogram = new Histogram({ name: NAMES.histogram[0], help: NAMES.histogram[1], labelNames, buckets: BOUNDS, registers: [theirs] });

  for (const [method, route, status, seconds] of ANSWERS) {
    series.record(method, route, status, seconds);
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.match(await ours.metrics(), /^http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v1\/orgs\/:orgId",status="200"\} 2$/m);

  // The registry's reset empties both.
  ours.resetMetrics();
  theirs.resetMetrics();
  assert.equal(await ours.metrics(), await theirs.metrics());
});
