// The Google integration's metrics, on the instance's registry (src/metrics/): requests to Google
// by API and outcome (a 429/5xx retried shows as `retried`), and users' pushes by outcome. Jobs by
// kind and outcome are the queue's own (`jobs_total`).
import { Counter, type Registry } from 'prom-client';
import type { RequestOutcome } from './client.ts';

export type PushOutcome = 'deployed' | 'unchanged' | 'failed' | 'skipped';

export function createGoogleMetrics(registry: Registry) {
  const requests = new Counter({
    name: 'google_api_requests_total',
    help: "Requests to Google's token, Directory and Gmail endpoints, by API and outcome (ok, retried, error).",
    labelNames: ['api', 'outcome'] as const,
    registers: [registry],
  });
  const pushes = new Counter({
    name: 'signature_pushes_total',
    help: "Users' signatures handled by a Gmail push, by outcome (deployed, unchanged, failed, skipped).",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['deployed', 'unchanged', 'failed', 'skipped'] as const) pushes.labels(outcome).inc(0);
  return {
    request(api: 'token' | 'directory' | 'gmail', outcome: RequestOutcome) {
      requests.labels(api, outcome).inc();
    },
    pushed(outcome: PushOutcome, count = 1) {
      if (count > 0) pushes.labels(outcome).inc(count);
    },
  };
}

export type GoogleMetrics = ReturnType<typeof createGoogleMetrics>;
