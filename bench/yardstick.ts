// `node bench/yardstick.ts [--work 10,20,35,50] [--duration 5] [--connections 50]`: what ratio a
// bare server gets on this machine when each answer costs some microseconds of CPU more. The bare
// server (bench/baseline.ts) is measured with no work and with each amount, alternated, under
// `npm run bench`'s load (autocannon in this process). It tells how far a ratio goal is reachable
// here: on a 2-core machine the load generator shares the cores, and once the server is the slower
// side its CPU per answer grows by more than the work added (BENCHMARKS.md, "How to read the figures").
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startProcess } from '../test/helpers/process.ts';
import { freePort } from '../test/helpers/server.ts';
import { cpuTimeUs } from './measure.ts';

const { values } = parseArgs({
  options: {
    work: { type: 'string', default: '10,20,35,50' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

/** req/s and CPU µs per answer of the bare server with `workUs` of CPU per answer. */
async function measure(workUs: number): Promise<{ rps: number; cpuUs: number }> {
  const port = await freePort();
  const server = await startProcess({}, port, { script: 'bench/baseline.ts', args: [String(port), String(workUs)], ready: '/' });
  try {
    // Warm-up: V8 compiles the route, the connections open.
    await autocannon({ url: `${server.url}/`, connections, duration: 1 });
    const before = cpuTimeUs(server.pid);
    const result = await autocannon({ url: `${server.url}/`, connections, duration });
    return { rps: result.requests.total / duration, cpuUs: (cpuTimeUs(server.pid) - before) / result.requests.total };
  } finally {
    await server.stop();
  }
}

const rows = ['| work per answer (µs) | req/s | bare req/s around it | ratio | CPU µs per answer | of which beyond bare + work |', '|---|---|---|---|---|---|'];
let bare = await measure(0);
for (const work of values.work.split(',').map(Number)) {
  const loaded = await measure(work);
  const after = await measure(0);
  const bareRps = (bare.rps + after.rps) / 2;
  const bareCpu = (bare.cpuUs + after.cpuUs) / 2;
  rows.push(
    `| ${work} | ${Math.round(loaded.rps)} | ${Math.round(bareRps)} | ${(loaded.rps / bareRps).toFixed(3)} | ${loaded.cpuUs.toFixed(1)} | ${(loaded.cpuUs - bareCpu - work).toFixed(1)} |`,
  );
  bare = after;
}
process.stdout.write(`${rows.join('\n')}\n`);
