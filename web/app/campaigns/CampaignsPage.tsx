// Campaigns: scheduled banners for an audience (docs/api.md, "Campaigns"). Schedule one
// (ScheduleForm.tsx), see the list with each status, end one now or cancel one not started yet,
// and preview a person's signature as it is now (the banner shows only for its audience while it is active; a preview counts nothing).
import { lazy, Suspense, useState } from 'react';
import { Link, Route, Routes } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { describeWhen } from '../../shared/when.ts';
import { useCampaignActions, useCampaigns, usePeople, usePreview, type Campaign } from './api.ts';
import { ScheduleForm } from './ScheduleForm.tsx';
import { TableWrap } from '../../shared/components/ListTable.tsx';

const StatsPage = lazy(() => import('./StatsPage.tsx'));

function CampaignRow({ c }: { c: Campaign }) {
  const actions = useCampaignActions();
  const [error, setError] = useState<unknown>(null);
  return (
    <tr>
      <td>{c.name}</td>
      <td>{c.status}</td>
      <td>{new Date(c.startsAt).toLocaleString()}</td>
      <td>{c.endsAt ? new Date(c.endsAt).toLocaleString() : '—'}</td>
      <td>{describeWhen(c.audience)}</td>
      <td>{c.variants.map((v) => `${v.alt || v.link} (${v.weight})`).join(' · ')}</td>
      <td>
        <Link to={`${c.campaignId}/stats`} aria-label={`Stats of ${c.name}`}>
          Stats
        </Link>{' '}
        {c.status === 'active' ? (
          <Button className="btn-small" onClick={() => void actions.endNow(c).catch(setError)} aria-label={`End now: ${c.name}`}>
            End now
          </Button>
        ) : null}
        {c.status === 'scheduled' ? (
          <Button className="btn-small" onClick={() => void actions.cancel(c).catch(setError)} aria-label={`Cancel: ${c.name}`}>
            Cancel
          </Button>
        ) : null}
        <ErrorMessage error={error} />
      </td>
    </tr>
  );
}

function Preview() {
  const [q, setQ] = useState('');
  const people = usePeople(q.trim());
  const [userId, setUserId] = useState('');
  const preview = usePreview(userId || undefined);
  return (
    <section className="card" aria-label="Preview">
      <h2>Preview a person’s signature</h2>
      <div className="grid">
        <TextField label="Find a person" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Name or email" />
        <SelectField label="Preview as" value={userId} onChange={(e) => setUserId(e.target.value)}>
          <option value="">Choose a person…</option>
          {people.data?.items.map((u) => (
            <option key={u.userId} value={u.userId}>
              {u.name || u.email}
              {u.department ? ` · ${u.department}` : ''}
            </option>
          ))}
        </SelectField>
      </div>
      <ErrorMessage error={preview.error} />
      {preview.data ? <SignatureFrame html={preview.data.html} title="Signature preview" /> : null}
    </section>
  );
}

export default function CampaignsPage() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route
        path=":campaignId/stats"
        element={
          <Suspense fallback={<Loading label="Loading the stats…" />}>
            <StatsPage />
          </Suspense>
        }
      />
    </Routes>
  );
}

function CampaignList() {
  const campaigns = useCampaigns();
  return (
    <section className="page">
      <PageHeader title="Campaigns">
        Banners in the signatures of an audience, from a start to an end. Each person sees one variant, the same each time.
      </PageHeader>
      <div className="card">
        <h2>Campaigns</h2>
        {campaigns.loading && !campaigns.data ? <Loading /> : null}
        <ErrorMessage error={campaigns.error} />
        {campaigns.data && campaigns.data.items.length === 0 ? <Empty>No campaigns yet.</Empty> : null}
        {campaigns.data && campaigns.data.items.length > 0 ? (
          <TableWrap label="Campaigns" flat>
            <table className="table" aria-label="Campaigns">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Status</th>
                  <th>Starts</th>
                  <th>Ends</th>
                  <th>Audience</th>
                  <th>Variants</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {campaigns.data.items.map((c) => (
                  <CampaignRow key={c.campaignId} c={c} />
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
      </div>
      <ScheduleForm />
      <Preview />
    </section>
  );
}
