// `npm run bench:db [-- --users N --runs N]`: what the service's database-bound work costs, which
// the hot-route scenarios of `npm run bench` (answered from caches) do not measure: the CPU an
// idle service spends a second (the job queue's polls, the quota's and counters' writes), creating
// users through the API (4 clients at once), and listing them 50 at a time (autocannon, 4
// connections, 5 s). CPU is the whole service process's (every thread), from /proc, per
// operation. To compare two commits, run it in a checkout of each, alternately (BENCHMARKS.md,
// "Database-bound work").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { httpRequest } from '../test/helpers/server.ts';
import { benchEnv, orgAndService } from './measure.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '400' },
    runs: { type: 'string', default: '2' },
  },
});

interface Figures {
  idleMsPerS: number;
  createUs: number;
  createWallMs: number;
  listUs: number;
  listRps: number;
}

/** The process's CPU so far (user and system, every thread), in µs: /proc counts in 100 Hz ticks. */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function measureOnce(users: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-db-'));
  const env = benchEnv(dataDir);
  const { org, service } = await orgAndService(env, { name: 'DB Work', seats: users + 10, ownerEmail: 'owner@db-work.test' });
  try {
    const pid = service.pid as number;
    const key = org.apiKey.key;
    // Settled: the render thread loaded, the first polls made.
    await new Promise((r) => setTimeout(r, 10_000));
    let c0 = cpuUs(pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const idleMsPerS = (cpuUs(pid) - c0) / 10 / 1000;

    let next = 0;
    c0 = cpuUs(pid);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < users) {
          const i = next++;
          const res = await httpRequest(service.url, 'POST', `/v1/orgs/${org.orgId}/users`, {
            key,
            body: { email: `u${i}@db-work.test`, name: `User ${i}`, department: 'R&D' },
          });
          if (res.status !== 201) throw new Error(`create user: ${res.status} ${res.text}`);
        }
      }),
    );
    const createUs = (cpuUs(pid) - c0) / users;
    const createWallMs = (performance.now() - t0) / users;

    c0 = cpuUs(pid);
    const list = await autocannon({ url: `${service.url}/v1/orgs/${org.orgId}/users?limit=50`, headers: { 'x-api-key': key }, connections: 4, duration: 5 });
    if (list.non2xx > 0 || list.errors > 0) throw new Error(`list: ${list.non2xx} non-2xx, ${list.errors} errors`);
    const listUs = (cpuUs(pid) - c0) / list.requests.total;
    return { idleMsPerS, createUs, createWallMs, listUs, listRps: list.requests.average };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const row = (label: string, f: Figures) =>
  `| ${label} | ${f.idleMsPerS.toFixed(0)} | ${f.createUs.toFixed(0)} | ${f.createWallMs.toFixed(2)} | ${f.listUs.toFixed(0)} | ${f.listRps.toFixed(0)} |`;

const users = Number(values.users);
const lines = ['| run | idle: CPU ms a second | create a user: CPU µs | wall ms (4 at once) | list 50 users: CPU µs | req/s |', '|---|---|---|---|---|---|'];
for (let run = 1; run <= Number(values.runs); run++) {
  lines.push(row(String(run), await measureOnce(users)));
  process.stderr.write(`${lines.at(-1)}\n`);
}
process.stdout.write(`${lines.join('\n')}\n`);
