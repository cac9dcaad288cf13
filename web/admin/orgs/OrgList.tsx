// Every org: search by name, org id or the payment provider's customer id; filter by subscription
// status and billing state; sort; page. The filters live in the address, so a search is a link.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useSearch } from '../lib/use-search.ts';
import { CursorPager } from '../lib/CursorPager.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import { day, SUBSCRIPTION_STATUSES } from '../lib/format.ts';
import type { AdminOrg } from '../lib/types.ts';
import { useOrgList } from './api.ts';

const STATES = [
  ['', 'Any'],
  ['inGrace', 'In grace period'],
  ['blocked', 'Blocked (grace ended)'],
  ['overSeatLimit', 'Over the seat limit'],
] as const;

const SORTS = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['name', 'Name A–Z'],
  ['-name', 'Name Z–A'],
] as const;

export default function OrgList() {
  const search = useSearch(['q', 'status', 'state', 'sort'] as const);
  const { data, error, loading } = useOrgList(search.query, search.cursor);
  const [q, setQ] = useState(search.values.q);
  const sort = search.values.sort || 'newest';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    search.set({ q: q.trim() });
  };
  /** A column header that sorts by it; a second click reverses the order. */
  const sortHeader = (label: string, asc: string, desc: string) => {
    const active = sort === asc || sort === desc;
    const direction = sort === asc ? 'ascending' : sort === desc ? 'descending' : 'none';
    return (
      <th scope="col" aria-sort={direction}>
        <button type="button" className="sort" onClick={() => search.set({ sort: sort === asc ? desc : asc })}>
          {label}
          {active ? (sort === asc ? ' ▲' : ' ▼') : ''}
          <span className="sr-only">, sort</span>
        </button>
      </th>
    );
  };

  return (
    <section className="page">
      <PageHeader
        title="Organisations"
        actions={
          <Link className="btn btn-primary" to="/orgs/new">
            Create an organisation
          </Link>
        }
      >
        Every organisation of this stage, with its billing state.
      </PageHeader>
      <search aria-label="Organisations">
        <form className="toolbar" onSubmit={submit}>
          <TextField label="Search" placeholder="Name, org id or customer id" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
          <Button type="submit" variant="primary">
            Search
          </Button>
          <SelectField label="Subscription status" value={search.values.status} onChange={(e) => search.set({ status: e.target.value })}>
            <option value="">Any</option>
            {SUBSCRIPTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replaceAll('_', ' ')}
              </option>
            ))}
          </SelectField>
          <SelectField label="Billing state" value={search.values.state} onChange={(e) => search.set({ state: e.target.value })}>
            {STATES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <SelectField label="Sort" value={sort} onChange={(e) => search.set({ sort: e.target.value === 'newest' ? '' : e.target.value })}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
        </form>
      </search>
      <ListTable
        items={data?.items}
        loading={loading}
        error={error}
        label="Organisations"
        empty="No organisation matches."
        columns={[sortHeader('Name', 'name', '-name'), 'Status', 'Plan', 'Seats', 'Customer id', sortHeader('Created', 'oldest', 'newest')]}
        row={(org) => <OrgRow key={org.orgId} org={org} />}
      />
      <CursorPager nextCursor={data?.nextCursor} label="Organisation pages" />
    </section>
  );
}

function OrgRow({ org }: { org: AdminOrg }) {
  const { planStatus } = org;
  return (
    <tr>
      <td>
        <Link to={`/orgs/${org.orgId}`}>{org.name}</Link>
      </td>
      <td>
        <StatusPill status={org.subscriptionStatus} />
        {planStatus.blockedBy === 'grace_expired' ? <StatusPill status="failed" label="blocked" /> : null}
        {org.gracePeriodEndsAt && planStatus.writable && org.subscriptionStatus !== 'active' ? (
          <span className="muted small"> grace to {day(org.gracePeriodEndsAt)}</span>
        ) : null}
      </td>
      <td>{org.plan}</td>
      <td>
        {org.seatsUsed} / {org.seats}
        {org.overSeatLimit ? <StatusPill status="failed" label="over limit" /> : null}
      </td>
      <td>
        <code>{org.providerCustomerId ?? '—'}</code>
      </td>
      <td>{day(org.createdAt)}</td>
    </tr>
  );
}
