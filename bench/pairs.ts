// Two variants of one route measured in alternating slices on one service (A B, B A, A B, …), for a
// goal that compares them (issue #29: render-warm with an active campaign within 10 % of
// render-warm without). Measured in sequence, each once, the two meet different machines: these
// machines' speed drifts by ±20 % within minutes, more than the 10 % the goal allows. Alternated,
// each pair meets the same minute, and the medians of the slices compare the routes.
import { median, type Measured } from './measure.ts';

export interface PairedFigures {
  /** The two variants' names: `b` is compared against `a`. */
  a: string;
  b: string;
  sliceS: number;
  /** CPU µs per request of each slice, in the order measured within each variant. */
  aCpu: number[];
  bCpu: number[];
  aMedian: number;
  bMedian: number;
  /** b's median against a's, in per cent. */
  changePct: number;
  /** The pairs' own changes (b against a within each pair), in per cent: their spread. */
  pairChangesPct: number[];
}

const pct = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;

/** `pairs` pairs of slices of `a` and `b`, the order flipped each pair so neither always goes first. */
export async function pairedSlices(
  names: { a: string; b: string; sliceS: number },
  pairs: number,
  slice: { a: () => Promise<Measured>; b: () => Promise<Measured> },
): Promise<PairedFigures> {
  const aCpu: number[] = [];
  const bCpu: number[] = [];
  const pairChangesPct: number[] = [];
  for (let i = 0; i < pairs; i++) {
    let a: Measured;
    let b: Measured;
    if (i % 2 === 0) {
      a = await slice.a();
      b = await slice.b();
    } else {
      b = await slice.b();
      a = await slice.a();
    }
    if (a.errors + a.non2xx + b.errors + b.non2xx > 0) throw new Error(`${names.a} / ${names.b}: errors or unexpected answers in a slice`);
    aCpu.push(a.cpuUsPerRequest);
    bCpu.push(b.cpuUsPerRequest);
    pairChangesPct.push(pct(a.cpuUsPerRequest, b.cpuUsPerRequest));
  }
  const aMedian = median(aCpu);
  const bMedian = median(bCpu);
  return { ...names, aCpu, bCpu, aMedian, bMedian, changePct: pct(aMedian, bMedian), pairChangesPct };
}

export function pairedLine(p: PairedFigures, goal: string): string {
  return (
    `${p.b} against ${p.a}, ${p.aCpu.length} pairs of ${p.sliceS}-s slices alternated: CPU µs/req ${p.aCpu.join(', ')} against ` +
    `${p.bCpu.join(', ')}; medians ${p.aMedian} → ${p.bMedian} (${p.changePct >= 0 ? '+' : ''}${p.changePct} %; each pair ${p.pairChangesPct.map((c) => `${c >= 0 ? '+' : ''}${c}`).join(', ')} %; goal ${goal})`
  );
}
