// Every staff action across organisations, newest first: who, what, on which organisation, and
// the correlation id to find the request in the logs.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useSearch } from '../lib/use-search.ts';
import { CursorPager } from '../lib/CursorPager.tsx';
import { when } from '../lib/format.ts';
import { AuditCells } from '../lib/AuditCells.tsx';
import { useStaffAudit, useStaffEmails } from './api.ts';

export default function StaffAuditPage() {
  const search = useSearch(['action', 'orgId'] as const);
  const query = { limit: 50, ...search.query, ...(search.cursor ? { cursor: search.cursor } : {}) };
  const { data, error, loading } = useStaffAudit(query);
  const emailOf = useStaffEmails();
  const [action, setAction] = useState(search.values.action);
  const [orgId, setOrgId] = useState(search.values.orgId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    search.set({ action: action.trim(), orgId: orgId.trim() });
  };
  return (
    <section className="page wide">
      <PageHeader title="Staff audit">Every action of the staff, on any organisation or on the staff themselves.</PageHeader>
      <search aria-label="Staff audit">
        <form className="toolbar" onSubmit={submit}>
          <TextField label="Action" placeholder="e.g. org.create" value={action} onChange={(e) => setAction(e.target.value)} />
          <TextField label="Org id" value={orgId} onChange={(e) => setOrgId(e.target.value)} />
          <Button type="submit">Filter</Button>
        </form>
      </search>
      <ListTable
        items={data?.items}
        loading={loading}
        error={error}
        label="Staff actions"
        empty="No staff action matches."
        columns={['When', 'Staff', 'Organisation', 'Action', 'Target', 'Correlation id']}
        row={(e, i) => (
          <tr key={`${e.at}-${e.action}-${e.targetId}-${i}`}>
            <td className="nowrap">{when(e.at)}</td>
            <td>{emailOf(e.actor.id)}</td>
            <td>{e.orgId ? <Link to={`/orgs/${e.orgId}`}>{e.orgId.slice(0, 8)}</Link> : <span className="muted">—</span>}</td>
            <AuditCells entry={e} />
          </tr>
        )}
      />
      <CursorPager nextCursor={data?.nextCursor} label="Audit pages" />
    </section>
  );
}
