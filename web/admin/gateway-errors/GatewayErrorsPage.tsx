// The SMTP gateway's refusals and failures across organisations, newest first: when, which org,
// what happened and why, the client's address, the sender, and the correlation id to find the
// message in the logs.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useSearch } from '../lib/use-search.ts';
import { when } from '../lib/format.ts';
import { useGatewayErrors } from './api.ts';

export default function GatewayErrorsPage() {
  const search = useSearch(['orgId', 'from', 'to'] as const);
  const { data, error, loading } = useGatewayErrors(search.query);
  const [orgId, setOrgId] = useState(search.values.orgId);
  const [from, setFrom] = useState(search.values.from);
  const [to, setTo] = useState(search.values.to);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    search.set({ orgId: orgId.trim(), from, to });
  };
  return (
    <section className="page wide">
      <PageHeader title="Gateway errors">
        Messages the SMTP signature gateway refused or could not stamp or relay, across organisations (the newest 200).
      </PageHeader>
      <search aria-label="Gateway errors">
        <form className="toolbar" onSubmit={submit}>
          <TextField label="Org id" value={orgId} onChange={(e) => setOrgId(e.target.value)} />
          <TextField label="From (UTC)" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
          <TextField label="To (UTC)" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          <Button type="submit">Filter</Button>
        </form>
      </search>
      <ListTable
        items={data?.items}
        loading={loading}
        error={error}
        label="Gateway errors"
        empty="No gateway error matches."
        columns={['When', 'Organisation', 'Outcome', 'Reason', 'Client', 'Sender', 'Correlation id']}
        row={(e) => (
          <tr key={e.correlationId}>
            <td className="nowrap">{when(e.at)}</td>
            <td>{e.orgId ? <Link to={`/orgs/${e.orgId}`}>{e.orgId.slice(0, 8)}</Link> : <span className="muted">none proven</span>}</td>
            <td>{e.outcome}</td>
            <td>{e.reason}</td>
            <td>{e.clientAddress ?? '—'}</td>
            <td>{e.sender || '<>'}</td>
            <td>
              <code>{e.correlationId}</code>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
