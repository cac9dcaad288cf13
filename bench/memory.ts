// `npm run bench:memory [-- <npm run bench's options>]`: `npm run bench` (bench/run.ts, unchanged)
// with bench/memory-probe.ts loaded into the service, then what owned the service's resident set
// at its peak: the V8 heaps of the main thread and of each render thread, the embedded database's
// WebAssembly memory, malloc, the Node binary's pages (BENCHMARKS.md, "Memory").
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'sigsvc-memory-'));
const reportFile = join(dir, 'report.json');
const probe = new URL('./memory-probe.ts', import.meta.url).pathname;
const json = process.argv.includes('--json');
try {
  const child = spawn(process.execPath, [new URL('./run.ts', import.meta.url).pathname, ...process.argv.slice(2)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${probe}`.trim(), SIGSVC_MEMORY_REPORT: reportFile },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  // The bench's progress lines, timed: each starts a phase (seeding, a scenario, a baseline slice).
  const phases: Phase[] = [];
  let pending = '';
  child.stderr.on('data', (d: Buffer) => {
    process.stderr.write(d);
    const lines = (pending + d.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (/^… [a-z]/.test(line)) phases.push({ at: Date.now(), name: line.slice(2).split(':')[0] ?? line });
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  // The bench's service is the first started; the noisy org's and the gateway's come later.
  const reports = readdirSync(dir)
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Report)
    .sort((a, b) => a.startedAt - b.startedAt);
  const [main, ...others] = reports;
  if (!main) throw new Error('no memory report: was the service started?');
  const { peak } = main;
  const byPhase = phaseMaxima(phases, main.timeline);
  const otherPeaks = others.map((r) => r.peak?.rssMb ?? 0);
  if (json) {
    const bench = JSON.parse(out) as Record<string, unknown>;
    process.stdout.write(`${JSON.stringify({ ...bench, memory: { ...peak, byPhase, otherServicesRssMb: otherPeaks } }, null, 2)}\n`);
  } else {
    const phaseLines = ['', "the service's largest RSS in each phase (MB):", byPhase.map((p) => `${p.name} ${p.rssMb}`).join(', ')];
    const otherLines = otherPeaks.length ? [`the noisy org's and the gateway's own services peaked at ${otherPeaks.join(', ')} MB`] : [];
    process.stdout.write(`${out}\n${table(peak).join('\n')}\n${[...phaseLines, ...otherLines].join('\n')}\n`);
  }
  process.exitCode = code ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

interface Phase {
  at: number;
  name: string;
}

interface Report {
  startedAt: number;
  peak: Peak;
  timeline: [number, number][];
}

/** The largest RSS sampled in each phase (a phase lasts until the next progress line). */
function phaseMaxima(phases: Phase[], timeline: [number, number][]): { name: string; rssMb: number }[] {
  return phases.map((phase, i) => {
    const end = phases[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    let max = 0;
    // The RSS when the phase begins is the last sample before it.
    for (const [at, rss] of timeline) if (at < end && (at >= phase.at || at === timeline.findLast(([t]) => t < phase.at)?.[0])) max = Math.max(max, rss);
    return { name: phase.name, rssMb: max };
  });
}

interface Peak {
  atS: number;
  rssMb: number;
  smaps: Record<string, number>;
  mainHeap: { usedMb: number; totalMb: number; physicalMb: number; spaces: Record<string, number> };
  external: { externalMb: number; arrayBuffersMb: number };
  workerHeaps: { usedMb: number; totalMb: number; physicalMb: number; externalMb: number }[];
}

function table(p: Peak): string[] {
  const workers = p.workerHeaps.reduce((sum, w) => sum + w.physicalMb, 0);
  const v8Anon = p.mainHeap.physicalMb + workers;
  const s = p.smaps;
  const rows: [string, number, string][] = [
    [
      'V8 heap, main thread',
      p.mainHeap.physicalMb,
      `${p.mainHeap.usedMb} MB live; new space ${p.mainHeap.spaces.new_space ?? 0} MB, old ${p.mainHeap.spaces.old_space ?? 0} MB`,
    ],
    [`V8 heaps, ${p.workerHeaps.length} worker thread(s)`, Math.round(workers * 10) / 10, p.workerHeaps.map((w) => `${w.usedMb} MB live`).join(', ')],
    ['WebAssembly memory (PGlite)', s.wasmMemory ?? 0, 'resident part of the embedded database'],
    [
      'malloc (main arena + thread arenas)',
      Math.round(((s.mallocMainArena ?? 0) + (s.mallocThreadArenas ?? 0)) * 10) / 10,
      `buffers: ${p.external.arrayBuffersMb} MB of ArrayBuffers, ${p.external.externalMb} MB external in all`,
    ],
    ['V8 code range (compiled code)', s.v8CodeRange ?? 0, ''],
    ['Node binary and other files', Math.round(((s.nodeBinary ?? 0) + (s.otherFiles ?? 0)) * 10) / 10, 'shared with other Node processes'],
    [
      'other anonymous (stacks, V8 pages not counted above)',
      Math.round(((s.v8Pages256k ?? 0) + (s.otherAnonymous ?? 0) + (s.otherNamed ?? 0) - v8Anon) * 10) / 10,
      '',
    ],
  ];
  return [
    `peak RSS ${p.rssMb} MB, ${p.atS} s after the service started`,
    '| owner | MB | note |',
    '|---|---|---|',
    ...rows.map(([owner, value, note]) => `| ${owner} | ${value} | ${note} |`),
  ];
}
