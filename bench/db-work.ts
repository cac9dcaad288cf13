// `npm run bench:db [-- --users N --runs N]`: what the service's database-bound work costs, which
// the hot-route scenarios of `npm run bench` (answered from caches) do not measure: the CPU an
// idle service spends a second (the job queue's polls, the quota's and counters' writes), creating
// users through the API (4 clients at once), and listing them 50 at a time (autocannon, 4
// connections, 5 s). CPU is the whole service process's (every thread), from /proc, per
// operation. Then how long an outbound webhook takes to arrive: 20 users created one after the
// other at irregular intervals, each timed from the API's answer to its `user.created` event at a
// receiver on localhost. To compare two commits, run it in a checkout of each, alternately (BENCHMARKS.md,
// "Database-bound work").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { httpRequest } from '../test/helpers/server.ts';
import { startReceiver } from '../test/helpers/webhook-receiver.ts';
import { benchEnv, cpuTimeUs, orgAndService } from './measure.ts';

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
  /** ms from a change's answer to its event's delivery: median and largest of 20. */
  deliveryMedianMs: number;
  deliveryMaxMs: number;
}

async function measureOnce(users: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-db-'));
  const env = { ...benchEnv(dataDir), WEBHOOK_ALLOW_PRIVATE: 'true' };
  const { org, service } = await orgAndService(env, { name: 'DB Work', seats: users + 30, ownerEmail: 'owner@db-work.test' });
  try {
    const pid = service.pid as number;
    const key = org.apiKey.key;
    // Settled: the render thread loaded, the first polls made.
    await new Promise((r) => setTimeout(r, 10_000));
    let c0 = cpuTimeUs(pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const idleMsPerS = (cpuTimeUs(pid) - c0) / 10 / 1000;

    let next = 0;
    c0 = cpuTimeUs(pid);
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
    const createUs = (cpuTimeUs(pid) - c0) / users;
    const createWallMs = (performance.now() - t0) / users;

    c0 = cpuTimeUs(pid);
    const list = await autocannon({ url: `${service.url}/v1/orgs/${org.orgId}/users?limit=50`, headers: { 'x-api-key': key }, connections: 4, duration: 5 });
    if (list.non2xx > 0 || list.errors > 0) throw new Error(`list: ${list.non2xx} non-2xx, ${list.errors} errors`);
    const listUs = (cpuTimeUs(pid) - c0) / list.requests.total;
    const delivery = await deliveryMs(service.url, org.orgId, key);
    return { idleMsPerS, createUs, createWallMs, listUs, listRps: list.requests.average, ...delivery };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An endpoint subscribed to `user.created`; 20 users created one by one, each timed to its event. */
async function deliveryMs(url: string, orgId: string, key: string): Promise<{ deliveryMedianMs: number; deliveryMaxMs: number }> {
  const receiver = await startReceiver();
  try {
    const endpoint = await httpRequest(url, 'POST', `/v1/orgs/${orgId}/webhook-endpoints`, { key, body: { url: receiver.url, events: ['user.created'] } });
    if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${endpoint.text}`);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      // Changes come at any moment, not right after the last delivery (when a queue that just
      // finished one looks again): a pause of 100–290 ms first.
      await new Promise((r) => setTimeout(r, 100 + ((i * 37) % 200)));
      const email = `latency${i}@db-work.test`;
      const res = await httpRequest(url, 'POST', `/v1/orgs/${orgId}/users`, { key, body: { email, name: `Latency ${i}` } });
      if (res.status !== 201) throw new Error(`create user: ${res.status} ${res.text}`);
      const answered = performance.now();
      const deadline = answered + 10_000;
      while (!receiver.received.some((r) => r.json.data?.email === email)) {
        if (performance.now() > deadline) throw new Error(`no user.created for ${email} within 10 s`);
        await new Promise((r) => setTimeout(r, 1));
      }
      times.push(performance.now() - answered);
    }
    times.sort((a, b) => a - b);
    return { deliveryMedianMs: (times[9]! + times[10]!) / 2, deliveryMaxMs: times.at(-1)! };
  } finally {
    await receiver.close();
  }
}

const row = (label: string, f: Figures) =>
  `| ${label} | ${f.idleMsPerS.toFixed(0)} | ${f.createUs.toFixed(0)} | ${f.createWallMs.toFixed(2)} | ${f.listUs.toFixed(0)} | ${f.listRps.toFixed(0)} | ${f.deliveryMedianMs.toFixed(1)} / ${f.deliveryMaxMs.toFixed(1)} |`;

const users = Number(values.users);
const lines = [
  '| run | idle: CPU ms a second | create a user: CPU µs | wall ms (4 at once) | list 50 users: CPU µs | req/s | webhook delivery ms: median / max |',
  '|---|---|---|---|---|---|---|',
];
for (let run = 1; run <= Number(values.runs); run++) {
  lines.push(row(String(run), await measureOnce(users)));
  process.stderr.write(`${lines.at(-1)}\n`);
}
process.stdout.write(`${lines.join('\n')}\n`);
