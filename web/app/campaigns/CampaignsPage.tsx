// Campaigns: scheduled banners for an audience (docs/api.md, "Campaigns"). Schedule one with up to
// two variants, see the list with each status, end one now, and preview a person's signature as
// it is now (the banner shows only for its audience while it is active).
import { lazy, Suspense, useState, type FormEvent } from 'react';
import { Link, Route, Routes } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useCampaignActions, useCampaigns, useImages, usePeople, usePreview, type Campaign } from './api.ts';

interface VariantForm {
  imageId: string;
  link: string;
  alt: string;
  weight: string;
}
const emptyVariant: VariantForm = { imageId: '', link: '', alt: '', weight: '1' };
/** `datetime-local` value for a moment (the browser's time zone), and back. */
const localValue = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

const StatsPage = lazy(() => import('./StatsPage.tsx'));

function ScheduleForm() {
  const images = useImages();
  const actions = useCampaignActions();
  const [name, setName] = useState('');
  const [startsAt, setStartsAt] = useState(localValue(new Date()));
  const [endsAt, setEndsAt] = useState('');
  const [departments, setDepartments] = useState('');
  const [variants, setVariants] = useState<VariantForm[]>([{ ...emptyVariant }, { ...emptyVariant, weight: '0' }]);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const setVariant = (i: number, patch: Partial<VariantForm>) => setVariants((vs) => vs.map((v, j) => (j === i ? { ...v, ...patch } : v)));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      const deps = departments
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean);
      await actions.create({
        name,
        startsAt: new Date(startsAt).toISOString(),
        endsAt: endsAt ? new Date(endsAt).toISOString() : null,
        audience: deps.length ? { departments: deps } : {},
        variants: variants.filter((v) => v.imageId).map((v) => ({ imageId: v.imageId, link: v.link, alt: v.alt, weight: Number(v.weight) })),
        utm: null,
      });
      setName('');
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label="Schedule a campaign">
      <h2>Schedule a campaign</h2>
      <ErrorMessage error={error} />
      <div className="grid">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required />
        <TextField label="Starts" type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} required />
        <TextField label="Ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} hint="Leave empty to run until ended" />
        <TextField label="Departments" value={departments} onChange={(e) => setDepartments(e.target.value)} hint="Comma-separated; empty for everyone" />
      </div>
      {variants.map((v, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the form has a fixed number of variants, never reordered: the place is the identity
        <fieldset key={i} className="grid">
          <legend>Variant {i + 1}</legend>
          <SelectField label={`Variant ${i + 1} image`} value={v.imageId} onChange={(e) => setVariant(i, { imageId: e.target.value })}>
            <option value="">{i === 0 ? 'Choose an image…' : 'None'}</option>
            {images.data?.items.map((img) => (
              <option key={img.imageId} value={img.imageId}>
                {img.width}×{img.height} {img.contentType} ({img.imageId.slice(0, 8)})
              </option>
            ))}
          </SelectField>
          <TextField label={`Variant ${i + 1} link`} type="url" value={v.link} onChange={(e) => setVariant(i, { link: e.target.value })} />
          <TextField label={`Variant ${i + 1} text`} value={v.alt} onChange={(e) => setVariant(i, { alt: e.target.value })} />
          <TextField label={`Variant ${i + 1} weight`} type="number" min={0} value={v.weight} onChange={(e) => setVariant(i, { weight: e.target.value })} />
        </fieldset>
      ))}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={pending}>
          Schedule
        </Button>
      </div>
    </form>
  );
}

function CampaignRow({ c }: { c: Campaign }) {
  const actions = useCampaignActions();
  const [error, setError] = useState<unknown>(null);
  return (
    <tr>
      <td>{c.name}</td>
      <td>{c.status}</td>
      <td>{new Date(c.startsAt).toLocaleString()}</td>
      <td>{c.endsAt ? new Date(c.endsAt).toLocaleString() : '—'}</td>
      <td>{c.audience.departments?.join(', ') ?? 'Everyone'}</td>
      <td>{c.variants.map((v) => `${v.alt || v.link} (${v.weight})`).join(' · ')}</td>
      <td>
        <Link to={`${c.campaignId}/stats`} aria-label={`Stats of ${c.name}`}>
          Stats
        </Link>{' '}
        {c.status !== 'ended' ? (
          <Button className="btn-small" onClick={() => void actions.endNow(c).catch(setError)} aria-label={`End now: ${c.name}`}>
            End now
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
        ) : null}
      </div>
      <ScheduleForm />
      <Preview />
    </section>
  );
}
