// The `noisy-org` scenario of `npm run bench` (DECISIONS wave 3, "No tenant, and no anonymous
// client, slows another"): a quiet org sends 10 requests a second, first on an idle service, then
// while a noisy org sends as fast as `connections` clients can; the report is the quiet org's p99
// in both (goal: under noise within 2× of idle). Its own service process, on a data directory of
// its own (or DATABASE_URL), with the stage's and the orgs' buckets at their defaults, as deployed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { runNode, startProcess } from '../test/helpers/process.ts';
import { benchEnv, cpuTimeUs, type Load, type Measured } from './measure.ts';

export interface NoisyResult {
  /** The quiet org's requests while the noisy org runs: what the series table shows. */
  quiet: Measured;
  quietIdleP50Ms: number;
  quietIdleP99Ms: number;
  noisyRps: number;
  /** The noisy org's share refused (429 `details.scope` `org`). */
  noisyRefused: number;
}

const QUIET_RPS = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The quiet org's paced requests for `durationS`: latencies (ms) and how many were not 200. */
async function quietly(url: string, orgId: string, key: string, durationS: number) {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + durationS * 1000;
  for (let next = performance.now(); next < end; next += 1000 / QUIET_RPS) {
    await sleep(Math.max(0, next - performance.now()));
    const started = performance.now();
    const res = await httpRequest(url, 'GET', `/v1/orgs/${orgId}`, { key });
    latencies.push(performance.now() - started);
    if (res.status !== 200) failed++;
  }
  return { latencies: latencies.sort((x, y) => x - y), failed };
}

/** `givenDir`: an embedded data directory already migrated, which the caller keeps (default: a new one). */
export async function noisyNeighbour(load: Load, givenDir?: string): Promise<NoisyResult> {
  const dataDir = givenDir ?? mkdtempSync(join(tmpdir(), 'sigsvc-bench-noisy-'));
  // Stage and org buckets at their defaults (benchEnv raises the stage's for the ratios).
  const env = benchEnv(dataDir, {
    STAGE: 'benchnoisy',
    RATE_LIMIT_RPS: '100',
    RATE_LIMIT_BURST: '200',
    ORG_RATE_LIMIT_RPS: '50',
    ORG_RATE_LIMIT_BURST: '100',
    QUOTA_REQUESTS_PER_MONTH: '100000',
  });
  try {
    const orgs: { orgId: string; apiKey: { key: string } }[] = [];
    for (const name of ['noisy', 'quiet']) {
      const created = await runNode(['src/cli/main.ts', 'org', 'create', '--name', name, '--owner-email', `${name}@bench.test`], env);
      if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
      orgs.push(JSON.parse(created.stdout));
    }
    const [noisy, quiet] = orgs as [(typeof orgs)[0], (typeof orgs)[0]];
    const port = await freePort();
    const service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port);
    try {
      // Warm: the first requests of a new process (compiling, filling caches) are not what is measured.
      for (let i = 0; i < 50; i++) await httpRequest(service.url, 'GET', `/v1/orgs/${quiet.orgId}`, { key: quiet.apiKey.key });
      load.progress(`… noisy-org: the quiet org alone at ${QUIET_RPS} req/s for ${load.durationS} s`);
      const idle = await quietly(service.url, quiet.orgId, quiet.apiKey.key, load.durationS);
      load.progress(`… noisy-org: the noisy org with ${load.connections} connections, the quiet org at ${QUIET_RPS} req/s`);
      const cpuBefore = cpuTimeUs(service.pid);
      const [flood, busy] = await Promise.all([
        // In a worker thread: the flood's client must not delay this thread, which times the quiet org.
        autocannon({
          url: `${service.url}/v1/orgs/${noisy.orgId}`,
          headers: { 'x-api-key': noisy.apiKey.key },
          connections: load.connections,
          duration: load.durationS,
          workers: 1,
        }),
        quietly(service.url, quiet.orgId, quiet.apiKey.key, load.durationS),
      ]);
      const cpuUs = cpuTimeUs(service.pid) - cpuBefore;
      const served = flood.requests.total + busy.latencies.length || 1;
      return {
        quiet: {
          name: 'noisy-org',
          rps: Math.round(busy.latencies.length / load.durationS),
          p50Ms: Math.round(percentile(busy.latencies, 50) * 10) / 10,
          p99Ms: Math.round(percentile(busy.latencies, 99) * 10) / 10,
          errors: 0,
          non2xx: busy.failed + idle.failed,
          // Of every request the service answered meanwhile, the noisy org's included.
          cpuUsPerRequest: Number.isFinite(cpuUs) ? Math.round((cpuUs / served) * 10) / 10 : 0,
        },
        quietIdleP50Ms: Math.round(percentile(idle.latencies, 50) * 10) / 10,
        quietIdleP99Ms: Math.round(percentile(idle.latencies, 99) * 10) / 10,
        noisyRps: Math.round(flood.requests.total / (flood.duration || load.durationS)),
        noisyRefused: flood.requests.total ? Math.round((flood.non2xx / flood.requests.total) * 1000) / 1000 : 0,
      };
    } finally {
      await service.stop();
    }
  } finally {
    if (!givenDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
