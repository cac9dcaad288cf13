// Loaded into the service by `npm run bench:memory` (bench/memory.ts) with `--import`, never by the
// service itself: it watches the process's resident set and, each time it reaches a new peak,
// records what owns it, so that the report describes the peak and not the end of the run.
// - V8: the main thread's heap (v8.getHeapStatistics) and each worker thread's (Worker's
//   getHeapStatistics(), Node ≥ 24: the render threads of src/render/pool.ts are piscina's
//   workers, caught here by wrapping the Worker class before piscina is loaded);
// - the rest from /proc/self/smaps: the embedded database's WebAssembly memory (the committed part
//   of a mapping followed by its 8 GB guard reservation), malloc's arenas, V8's code range, the Node
//   binary's pages, and what is left (V8's pages, buffers outside malloc, stacks).
// It writes its report (JSON) to SIGSVC_MEMORY_REPORT.<pid> when the process exits or on SIGUSR2.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';

const reportFile = process.env.SIGSVC_MEMORY_REPORT;
// Only the service (src/main.ts), not the bench's own process or the CLI it seeds with.
// The bench's noisy org and gateway start services of their own: each writes a report of its own,
// <SIGSVC_MEMORY_REPORT>.<pid>.
if (reportFile && /src[/\\]main\.ts$/.test(process.argv[1] ?? '')) install(`${reportFile}.${process.pid}`);

interface HeapFigures {
  usedMb: number;
  totalMb: number;
  physicalMb: number;
  externalMb: number;
}

function install(file: string): void {
  // SIGSVC_MEMORY_DETAIL=<dir>: /proc/self/smaps at the peak, and a heap snapshot of the main
  // thread on SIGUSR2 (large and slow: for a look in Chrome's DevTools, not for every run).
  const detailDir = process.env.SIGSVC_MEMORY_DETAIL;
  if (detailDir) process.on('SIGUSR2', () => v8.writeHeapSnapshot(`${detailDir}/main.heapsnapshot`));
  const require = createRequire(import.meta.url);
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const workers = new Set<import('node:worker_threads').Worker>();
  const Original = wt.Worker;
  wt.Worker = class extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      workers.add(this);
      this.once('exit', () => workers.delete(this));
    }
  };
  syncBuiltinESMExports();

  let peakKb = 0;
  let peak: Record<string, unknown> | undefined;
  let busy = false;
  const started = Date.now();
  // The RSS at each sample that moved it by 1 MB or more, [epoch ms, MB]: bench/memory.ts lays it
  // over the bench's progress lines to tell which scenario raised the resident set.
  const timeline: [number, number][] = [];
  const timer = setInterval(async () => {
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
    const last = timeline.at(-1);
    if (!last || Math.abs(last[1] - rssKb / 1024) >= 1) timeline.push([Date.now(), Math.round(rssKb / 1024)]);
    if (busy || rssKb <= peakKb + 512) return;
    busy = true;
    try {
      peakKb = rssKb;
      peak = { atS: Math.round((Date.now() - started) / 100) / 10, ...(await breakdown(workers)) };
      if (detailDir) writeFileSync(`${detailDir}/peak.smaps`, readFileSync('/proc/self/smaps', 'utf8'));
    } finally {
      busy = false;
    }
  }, 250);
  timer.unref();
  const write = () => writeFileSync(file, `${JSON.stringify({ startedAt: started, peak, timeline })}\n`);
  process.on('exit', write);
  process.on('SIGUSR2', write);
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

async function breakdown(workers: Set<import('node:worker_threads').Worker>): Promise<Record<string, unknown>> {
  const main = v8.getHeapStatistics();
  const usage = process.memoryUsage();
  const threads: HeapFigures[] = [];
  for (const w of workers) {
    try {
      const s = await w.getHeapStatistics();
      threads.push({ usedMb: mb(s.used_heap_size), totalMb: mb(s.total_heap_size), physicalMb: mb(s.total_physical_size), externalMb: mb(s.external_memory) });
    } catch {
      // The thread ended meanwhile.
    }
  }
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.physical_space_size)]));
  return {
    rssMb: mb(usage.rss),
    smaps: smaps(),
    mainHeap: { usedMb: mb(main.used_heap_size), totalMb: mb(main.total_heap_size), physicalMb: mb(main.total_physical_size), spaces },
    external: { externalMb: mb(usage.external), arrayBuffersMb: mb(usage.arrayBuffers) },
    workerHeaps: threads,
  };
}

/** Resident kB of /proc/self/smaps by kind of mapping. */
function smaps(): Record<string, number> {
  const lines = readFileSync('/proc/self/smaps', 'utf8').split('\n');
  const maps: { start: bigint; sizeKb: number; rssKb: number; perms: string; name: string }[] = [];
  for (const line of lines) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      maps.push({
        start: BigInt(`0x${head[1]}`),
        sizeKb: Number((BigInt(`0x${head[2]}`) - BigInt(`0x${head[1]}`)) / 1024n),
        rssKb: 0,
        perms: head[3] ?? '',
        name: head[4] ?? '',
      });
    } else if (line.startsWith('Rss:')) {
      const last = maps.at(-1);
      if (last) last.rssKb = Number(line.split(/\s+/)[1]);
    }
  }
  const out: Record<string, number> = {};
  const add = (k: string, kb: number) => (out[k] = (out[k] ?? 0) + kb);
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    if (m.name === '[heap]') add('mallocMainArena', m.rssKb);
    else if (m.name.startsWith('/') && m.name.includes('node_modules/node/')) add('nodeBinary', m.rssKb);
    else if (m.name.startsWith('/')) add('otherFiles', m.rssKb);
    else if (m.name) add('otherNamed', m.rssKb);
    else if (next && next.perms === '---p' && next.sizeKb >= 4 * 1024 * 1024 && m.perms === 'rw-p') add('wasmMemory', m.rssKb);
    else if (m.perms === 'rwxp') add('v8CodeRange', m.rssKb);
    // glibc's thread arenas: 64 MB-aligned heaps of at most 64 MB.
    else if (m.start % (64n * 1024n * 1024n) === 0n && m.sizeKb <= 65536) add('mallocThreadArenas', m.rssKb);
    else if (m.sizeKb === 256) add('v8Pages256k', m.rssKb);
    else add('otherAnonymous', m.rssKb);
  });
  for (const k of Object.keys(out)) out[k] = Math.round(((out[k] ?? 0) / 1024) * 10) / 10;
  return out;
}
