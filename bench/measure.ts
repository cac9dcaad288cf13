// The benches' measuring: one scenario with autocannon against a process, the CPU time that
// process spent per request, and a series of scenarios each compared with the bare server measured
// just before and after it. `npm run bench` (run.ts) and `npm run bench:google` (google-push.ts)
// both measure through this.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { freePort, httpRequest } from '../test/helpers/server.ts';

export interface Measured {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** CPU time of the answering process per request, µs: steadier than req/s on shared machines. */
  cpuUsPerRequest: number;
}

export interface Result extends Measured {
  /** Throughput of the baseline slices measured just before and after this scenario (their mean). */
  baselineRps: number;
  ratio: number;
}

/**
 * CPU time (user + system) the process has used, in microseconds, from /proc (Linux), for the
 * difference of two readings. Each thread's time is the scheduler's count in nanoseconds
 * (`/proc/<pid>/task/<tid>/schedstat`): the process's line (`/proc/<pid>/stat`) counts in ticks of
 * 10 ms, so a short slice of a light route (the test suite's quarter second at one connection, on
 * a loaded machine) could measure no CPU at all. A thread that ended counts with the time it had at
 * the last reading that saw it (one born and ended between two readings is missed; the service's
 * threads live as long as it does). On a kernel without schedstat, the process's line.
 */
export function cpuTimeUs(pid: number | undefined): number {
  try {
    if (!HAS_SCHEDSTAT) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
    }
    let seen = threadsSeen.get(pid as number);
    if (!seen) {
      seen = new Map();
      threadsSeen.set(pid as number, seen);
    }
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        seen.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
      } catch {
        // The thread ended since the listing: its last reading stands.
      }
    }
    let ns = 0;
    for (const v of seen.values()) ns += v;
    return ns / 1000;
  } catch {
    return Number.NaN;
  }
}
const HAS_SCHEDSTAT = existsSync('/proc/self/schedstat');
/** Each process's threads, as last read: tid → nanoseconds on a CPU. */
const threadsSeen = new Map<number, Map<string, number>>();
// USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK).
const CLOCK_TICKS = 100;

/**
 * The middle of the figures (of an even count, the upper of the two middle ones): the benches that
 * alternate slices (ab.ts, pairs.ts) compare medians, which one slow slice does not move.
 */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export function peakRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/**
 * The environment of a benchmarked service (and of its CLI seeding): a fresh data directory, the
 * caller's DATABASE_URL and REDIS_URL, warnings only, and limits no load reaches; `extra` adds to it.
 */
export function benchEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL ?? '',
    REDIS_URL: process.env.REDIS_URL ?? '',
    STAGE: 'bench',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_RPS: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
    PIXEL_RATE_LIMIT_RPS: '1000000000',
    PIXEL_RATE_LIMIT_BURST: '1000000000',
    ORG_RATE_LIMIT_RPS: '1000000000',
    ORG_RATE_LIMIT_BURST: '1000000000',
    PUBLIC_RATE_LIMIT_RPS: '1000000000',
    PUBLIC_RATE_LIMIT_BURST: '1000000000',
    ASSET_RATE_LIMIT_RPS: '1000000000',
    ASSET_RATE_LIMIT_BURST: '1000000000',
    CLICK_RATE_LIMIT_RPS: '1000000000',
    CLICK_RATE_LIMIT_BURST: '1000000000',
    // Counted and checked on every API-key request (its cost is part of the hot routes' ratios), never reached.
    QUOTA_REQUESTS_PER_MONTH: '1000000000',
    ...extra,
  };
}

export interface Load {
  connections: number;
  durationS: number;
  progress: (line: string) => void;
}

/**
 * One scenario: `connections` clients for `durationS` seconds against `target`. `success` is the
 * route's answer class: 2 (2xx), or 3 for a redirect (the click route); `non2xx` counts the others.
 */
export async function measure(name: string, target: ServiceProcess, load: Load, opts: autocannon.Options, success: 2 | 3 = 2): Promise<Measured> {
  load.progress(`… ${name}: ${load.connections} connections for ${load.durationS} s`);
  const cpuBefore = cpuTimeUs(target.pid);
  // autocannon notices the end of a run at its sample ticks (1 s by default): a run shorter than
  // a second (the test suite's smoke test) samples as often as it lasts, or it lasts a second.
  let r = await autocannon({ connections: load.connections, duration: load.durationS, sampleInt: Math.min(1000, load.durationS * 1000), ...opts });
  // A run too short for the route to answer once (the smoke test's quarter second, a webhook whose
  // commit took longer on a loaded machine) measures nothing: it then runs until each connection had one answer.
  if (r.requests.total === 0 && r.errors === 0) r = await autocannon({ connections: load.connections, amount: load.connections, ...opts });
  const cpuUs = cpuTimeUs(target.pid) - cpuBefore;
  const total = r.requests.total || 1;
  return {
    name,
    // Requests over the run's measured duration: autocannon's own average is over 1-second
    // samples, of which a run shorter than a second (the test suite's smoke test) has none.
    rps: Math.round(r.requests.total / (r.duration || load.durationS)),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: success === 2 ? r.non2xx : r['1xx'] + r['2xx'] + r['4xx'] + r['5xx'],
    cpuUsPerRequest: Number.isFinite(cpuUs) ? Math.round((cpuUs / total) * 10) / 10 : 0,
  };
}

/** The hot routes as autocannon requests them: an org by API key, a warm render, the pixel. */
/** The scenarios `hotRoutes` answers. */
export const HOT_ROUTES = ['org-apikey', 'render-warm', 'pixel'] as const;

export function hotRoutes(service: ServiceProcess, org: { orgId: string; key: string; userId: string }) {
  return {
    'org-apikey': { url: `${service.url}/v1/orgs/${org.orgId}`, headers: { 'x-api-key': org.key } },
    'render-warm': { url: `${service.url}/v1/orgs/${org.orgId}/render/${org.userId}`, method: 'POST', headers: { 'x-api-key': org.key } },
    pixel: { url: `${service.url}/v1/p/${org.userId}` },
  } satisfies Record<(typeof HOT_ROUTES)[number], autocannon.Options>;
}

/**
 * Measures the baseline, then each scenario followed by the baseline again (B S₁ B S₂ B …): these
 * machines' speed drifts by ±20 % within minutes (other tenants), which a single baseline measured
 * first would put into every ratio. Each scenario's ratio is to the mean of the two baseline
 * slices around it; the first row is the baseline, the mean of all its slices.
 */
export async function measureSeries(names: string[], run: (name: string) => Promise<Measured>, baseline: () => Promise<Measured>): Promise<Result[]> {
  const slices: Measured[] = [await baseline()];
  const scenarios: Result[] = [];
  for (const name of names) {
    const r = await run(name);
    const before = slices.at(-1)?.rps ?? 0;
    const after = await baseline();
    slices.push(after);
    const around = (before + after.rps) / 2;
    scenarios.push({ ...r, baselineRps: Math.round(around), ratio: around ? Math.round((r.rps / around) * 1000) / 1000 : 0 });
  }
  const sum = (pick: (r: Measured) => number) => slices.reduce((total, r) => total + pick(r), 0);
  const mean = (pick: (r: Measured) => number) => Math.round((sum(pick) / slices.length) * 10) / 10;
  const baselineRps = Math.round(mean((r) => r.rps));
  scenarios.unshift({
    name: 'baseline',
    rps: baselineRps,
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: mean((r) => r.p99Ms),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    cpuUsPerRequest: mean((r) => r.cpuUsPerRequest),
    baselineRps,
    ratio: 1,
  });
  return scenarios;
}

/** The rows of a series as a Markdown table. */
export function seriesTable(scenarios: Result[]): string[] {
  return [
    '| scenario     |   req/s | baseline req/s |  ratio |   p50 |   p99 | errors | non2xx | CPU µs/req |',
    '|--------------|---------|----------------|--------|-------|-------|--------|--------|------------|',
    ...scenarios.map(
      (s) =>
        `| ${s.name.padEnd(12)} | ${String(s.rps).padStart(7)} | ${String(s.baselineRps).padStart(14)} | ${s.ratio.toFixed(3).padStart(6)} | ${String(s.p50Ms).padStart(5)} | ${String(s.p99Ms).padStart(5)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(6)} | ${s.cpuUsPerRequest.toFixed(1).padStart(10)} |`,
    ),
  ];
}

/**
 * An org made by the CLI (with its owner and first API key) in a bench's store, then the service
 * started on that store: how the benches that drive one org's API begin.
 */
export async function orgAndService(
  env: Record<string, string>,
  org: { name: string; seats: number; ownerEmail: string },
): Promise<{ org: { orgId: string; apiKey: { key: string } }; service: ServiceProcess }> {
  const args = ['src/cli/main.ts', 'org', 'create', '--name', org.name, '--seats', String(org.seats), '--owner-email', org.ownerEmail];
  const created = await runNode(args, env);
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const port = await freePort();
  const service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port);
  return { org: JSON.parse(created.stdout) as { orgId: string; apiKey: { key: string } }, service };
}

/**
 * Creates `count` users of an org through the API, 50 at a time (the benches' seeding); `fields(i)`
 * is the i-th user's body. Answers their ids in order; any answer but 201 stops the bench.
 */
export async function createUsers(url: string, orgId: string, key: string, count: number, fields: (i: number) => Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) => httpRequest(url, 'POST', `/v1/orgs/${orgId}/users`, { key, body: fields(i + j) })),
    );
    for (const r of batch) {
      if (r.status !== 201) throw new Error(`create user: ${r.status} ${r.text}`);
      ids.push(r.body.userId);
    }
  }
  return ids;
}
