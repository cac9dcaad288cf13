// A campaign's stats: per day a bar chart of impressions and of people's clicks, and a table per
// variant (impressions, clicks, people, suspected bots, click-through rate), with a CSV download.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useCampaignStats, useCsvDownload, type CampaignStats } from './api.ts';
import { TableWrap } from '../../shared/components/ListTable.tsx';

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);

function DayChart({ days }: { days: CampaignStats['days'] }) {
  const max = Math.max(1, ...days.map((d) => d.impressions));
  const barW = 24;
  const h = 120;
  return (
    <svg role="img" aria-label="Impressions and people's clicks per day" width={Math.max(1, days.length) * (barW * 2 + 12)} height={h + 24}>
      {days.map((d, i) => {
        const x = i * (barW * 2 + 12);
        const hi = (d.impressions / max) * h;
        const hc = (d.humanClicks / max) * h;
        return (
          <g key={d.date}>
            <title>{`${d.date}: ${d.impressions} impressions, ${d.humanClicks} clicks by people`}</title>
            <rect x={x} y={h - hi} width={barW} height={hi} fill="#8aa4e8" />
            <rect x={x + barW} y={h - hc} width={barW} height={hc} fill="#1d3f9e" />
            <text x={x} y={h + 16} fontSize="10">
              {d.date.slice(5)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export default function StatsPage() {
  const { campaignId = '' } = useParams();
  const stats = useCampaignStats(campaignId);
  const download = useCsvDownload(campaignId);
  const [error, setError] = useState<unknown>(null);
  return (
    <section className="page">
      <PageHeader title="Campaign stats">
        <Link to="..">All campaigns</Link>
      </PageHeader>
      {stats.loading && !stats.data ? <Loading /> : null}
      <ErrorMessage error={stats.error ?? error} />
      {stats.data ? (
        <>
          <div className="card">
            <h2>Per day</h2>
            <p className="muted">Light bars: impressions; dark bars: clicks by people (suspected scanners left out).</p>
            <DayChart days={stats.data.days} />
          </div>
          <div className="card">
            <h2>Per variant</h2>
            <TableWrap label="Variants" flat>
              <table className="table" aria-label="Variants">
                <thead>
                  <tr>
                    <th>Variant</th>
                    <th>Impressions</th>
                    <th>Clicks</th>
                    <th>By people</th>
                    <th>Suspected bots</th>
                    <th>CTR</th>
                  </tr>
                </thead>
                <tbody>
                  {stats.data.variants.map((v) => (
                    <tr key={v.variant}>
                      <td>{v.alt || `Variant ${v.variant + 1}`}</td>
                      <td>{v.impressions}</td>
                      <td>{v.clicks}</td>
                      <td>{v.humanClicks}</td>
                      <td>{v.suspectedBotClicks}</td>
                      <td>{pct(v.ctr)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <div className="form-actions">
              <Button onClick={() => void download().catch(setError)}>Download CSV</Button>
            </div>
          </div>
        </>
      ) : null}
    </section>
  );
}
