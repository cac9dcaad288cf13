// `npm run bench -- --profile DIR`: a CPU profile of the service per scenario. The service is
// started with the inspector on a local port (`--inspect`, through NODE_OPTIONS) and the bench asks
// V8's profiler (the DevTools protocol, over Node's own WebSocket client) to start before each
// scenario and stop after it, so each profile holds one scenario's busy stretch and nothing of the
// seeding or of the baseline slices around it (`--cpu-prof` would write one profile of the whole
// process at its exit). Each `DIR/<scenario>.cpuprofile` opens in Chrome's DevTools or
// speedscope; `DIR/top.md` lists the top self-time frames and the packages they belong to.
// Profiled runs are slower (the sampling costs): read their figures as shares, not as results.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../test/helpers/process.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** NODE_OPTIONS for a service to be profiled: its inspector on `port`, on this machine only. */
export const inspectOptions = (port: number) => `--inspect=127.0.0.1:${port}`;

export interface Profiler {
  start: () => Promise<void>;
  /** Stops the profile and writes `DIR/<name>.cpuprofile`; answers its top frames as Markdown. */
  stop: (name: string) => Promise<string[]>;
  close: () => void;
}

export async function connectProfiler(inspectPort: number, dir: string): Promise<Profiler> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const target = targets[0]?.webSocketDebuggerUrl;
  if (!target) throw new Error(`no inspector target on port ${inspectPort}`);
  const ws = new WebSocket(target);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let seq = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.addEventListener('message', (event) => {
    const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  // 250 µs: four times the default rate, enough samples for a scenario of a few seconds.
  await send('Profiler.setSamplingInterval', { interval: 250 });
  return {
    start: async () => void (await send('Profiler.start')),
    stop: async (name) => {
      const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      return topFrames(name, profile);
    },
    close: () => ws.close(),
  };
}

/** Where a frame's code lives: a package, Node's internals, the project's file, or V8's own entries. */
function owner(url: string): string {
  if (!url) return 'V8 / native';
  if (url.startsWith('node:')) return 'node';
  const path = url.startsWith('file:') ? relative(fileURLToPath(ROOT), fileURLToPath(url)) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return pkg?.[1] ?? path;
}

/** The top self-time frames of a profile, and the share of each owner, as Markdown lines. */
export function topFrames(name: string, profile: CpuProfile, count = 12): string[] {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const frames = new Map<string, number>();
  const owners = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame || frame.functionName === '(idle)') return;
    total += us;
    const where = owner(frame.url);
    const key = `${frame.functionName || '(anonymous)'} ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    frames.set(key, (frames.get(key) ?? 0) + us);
    owners.set(where, (owners.get(where) ?? 0) + us);
  });
  const share = (us: number) => `${((us / (total || 1)) * 100).toFixed(1)} %`;
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `### ${name} (${(total / 1000).toFixed(0)} ms busy)`,
    '',
    '| self time | frame |',
    '|---|---|',
    ...top(frames, count).map(([k, us]) => `| ${share(us)} | \`${k}\` |`),
    '',
    `By owner: ${top(owners, 8)
      .map(([k, us]) => `${k} ${share(us)}`)
      .join(', ')}`,
    '',
  ];
}
