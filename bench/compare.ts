// `npm run bench -- --compare FILE`: this run (or `--with FILE2`, another saved one) against the
// `--json` (or `--out`) report of an earlier run, scenario by scenario: the ratio to the bare
// server, the service's CPU per request, p50, p99, and the peak RSS; the gateway's and the noisy
// org's figures when both reports have them. A change reads as a difference (and, for CPU, a per
// cent): whether it is beyond the run-to-run spread is for interleaved runs to say (BENCHMARKS.md).
import type { Result } from './measure.ts';

/** The parts of a bench report (run.ts's `--json`) that a comparison reads. */
export interface Report {
  scenarios: Result[];
  rssMb: number;
  database?: string;
  durationS?: number;
  gateway?: GatewayFigures;
}

/** The gateway scenario: `bench/gateway.ts --json` folded into the report. */
export interface GatewayFigures {
  ratio: number;
  stamped: { messagesPerS: number; p50Ms: number; p99Ms: number; errors: number };
  passThrough: { messagesPerS: number; p50Ms: number; p99Ms: number; errors: number };
}

const signed = (x: number, digits: number) => `${x > 0 ? '+' : ''}${x.toFixed(digits)}`;
const pct = (before: number, after: number) => (before ? `${signed(((after - before) / before) * 100, 1)} %` : 'n/a');
/** `before → after (change)`, the change as a difference, or a per cent when `relative`. */
function cell(before: number | undefined, after: number | undefined, digits: number, relative = false): string {
  if (before === undefined || after === undefined || !Number.isFinite(before) || !Number.isFinite(after)) return `${before ?? '—'} → ${after ?? '—'}`;
  const change = relative ? pct(before, after) : signed(after - before, digits);
  return `${before.toFixed(digits)} → ${after.toFixed(digits)} (${change})`;
}

/** The comparison as Markdown lines: one row per scenario in either report, then RSS and the gateway. */
export function compareReports(before: Report, after: Report): string[] {
  const names = [...new Set([...after.scenarios.map((s) => s.name), ...before.scenarios.map((s) => s.name)])];
  const find = (r: Report, name: string) => r.scenarios.find((s) => s.name === name);
  const rows = names.map((name) => {
    const [b, a] = [find(before, name), find(after, name)];
    return `| ${name} | ${cell(b?.ratio, a?.ratio, 3)} | ${cell(b?.cpuUsPerRequest, a?.cpuUsPerRequest, 1, true)} | ${cell(b?.p50Ms, a?.p50Ms, 1)} | ${cell(b?.p99Ms, a?.p99Ms, 1)} | ${cell(b?.rps, a?.rps, 0, true)} |`;
  });
  const lines = [
    '| scenario | ratio | CPU µs/req | p50 ms | p99 ms | req/s |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `peak RSS of the service: ${cell(before.rssMb, after.rssMb, 0)} MB`,
  ];
  const [gb, ga] = [before.gateway, after.gateway];
  if (gb || ga) {
    lines.push(
      `gateway: ratio ${cell(gb?.ratio, ga?.ratio, 2)}; stamped ${cell(gb?.stamped.messagesPerS, ga?.stamped.messagesPerS, 0, true)} messages/s, ` +
        `p50 ${cell(gb?.stamped.p50Ms, ga?.stamped.p50Ms, 1)} ms, p99 ${cell(gb?.stamped.p99Ms, ga?.stamped.p99Ms, 1)} ms`,
    );
  }
  if (before.database && after.database && before.database !== after.database) {
    lines.push(`note: the reports are of different databases (${before.database}, ${after.database}); their figures do not compare`);
  }
  return lines;
}
