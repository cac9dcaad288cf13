// Daily opens as stacked bars (real opens, and fetches by mail proxies or prefetchers), drawn as
// inline SVG: no chart library for one chart. The numbers are also in a table for screen readers
// and for anyone who wants them.
import { useState } from 'react';
import type { DayCount } from './days.ts';
import { TableWrap } from '../../shared/components/ListTable.tsx';

const W = 720;
const H = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 40 };

function niceMax(v: number): number {
  if (v <= 4) return 4;
  const p = 10 ** Math.floor(Math.log10(v));
  const steps = [1, 2, 2.5, 5, 10].map((s) => s * p);
  return steps.find((s) => s >= v) ?? 10 * p;
}

export function OpensChart({ data }: { data: DayCount[] }) {
  const [showTable, setShowTable] = useState(false);
  const totalReal = data.reduce((s, d) => s + d.real, 0);
  const totalProxied = data.reduce((s, d) => s + d.proxied, 0);
  const max = niceMax(Math.max(0, ...data.map((d) => d.real + d.proxied)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, data.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const ticks = [0, max / 4, max / 2, (3 * max) / 4, max];
  const summary = `Opens over the last ${data.length} days: ${totalReal} real, ${totalProxied} by mail proxies.`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} className="chart-svg">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} className="chart-grid" />
            <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end" className="chart-label">
              {Number.isInteger(t) ? t : t.toFixed(1)}
            </text>
          </g>
        ))}
        {data.map((d, i) => {
          const x = PAD.left + i * slot + (slot - bar) / 2;
          return (
            <g key={d.day}>
              <title>{`${d.day}: ${d.real} real, ${d.proxied} proxied`}</title>
              <rect x={x} width={bar} y={y(d.real)} height={y(0) - y(d.real)} className="chart-real" />
              <rect x={x} width={bar} y={y(d.real + d.proxied)} height={y(d.real) - y(d.real + d.proxied)} className="chart-proxied" />
              {(i % 7 === 0 && i < data.length - 3) || i === data.length - 1 ? (
                <text x={x + bar / 2} y={H - 8} textAnchor="middle" className="chart-label">
                  {d.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="chart-legend">
        <span>
          <span className="swatch chart-real" aria-hidden="true" /> Real opens ({totalReal})
        </span>
        <span>
          <span className="swatch chart-proxied" aria-hidden="true" /> Proxy and prefetch fetches ({totalProxied})
        </span>
        <button type="button" className="btn btn-ghost btn-small" aria-expanded={showTable} onClick={() => setShowTable((s) => !s)}>
          {showTable ? 'Hide' : 'Show'} the numbers
        </button>
      </figcaption>
      {showTable ? (
        <TableWrap label="Opens per day (UTC)">
          <table>
            <caption className="muted small">Opens per day (UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Real</th>
                <th scope="col">Proxied</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  <td>{d.real}</td>
                  <td>{d.proxied}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </figure>
  );
}
