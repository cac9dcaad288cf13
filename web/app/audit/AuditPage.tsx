// The org's audit log, newest first: filters by action, actor, target and date (the API's
// `action`, `actorId`, `targetId`, `from`, `to`), the correlation id of each entry (the id a
// person quotes when reporting a problem), and cursor paging. The filters live in the URL, so a
// filtered view can be shared and survives a reload.
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useActorNames, useAudit, type AuditQuery } from './api.ts';
import './audit.css';

const ACTOR_TYPES: Record<string, string> = { user: 'User', apiKey: 'API key', staff: 'Staff', paymentProvider: 'Payments', system: 'System' };

const FILTERS = ['action', 'actorId', 'targetId', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** A day picked in the form, as the API's instant: `from` at its start, `to` at the end of the day (exclusive next midnight). */
function toInstant(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T00:00:00`);
  if (end) d.setDate(d.getDate() + 1);
  return d.toISOString();
}

export default function AuditPage() {
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filters;
  const [form, setForm] = useState<Filters>(filters);
  const pager = usePager();
  const query: AuditQuery = {
    limit: 50,
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.actorId ? { actorId: filters.actorId } : {}),
    ...(filters.targetId ? { targetId: filters.targetId } : {}),
    ...(filters.from ? { from: toInstant(filters.from, false) } : {}),
    ...(filters.to ? { to: toInstant(filters.to, true) } : {}),
    ...(pager.cursor ? { cursor: pager.cursor } : {}),
  };
  const entries = useAudit(query);
  const names = useActorNames();

  const apply = (next: Filters) => {
    const search = new URLSearchParams();
    for (const f of FILTERS) if (next[f].trim()) search.set(f, next[f].trim());
    setParams(search);
    pager.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(form);
  };
  const only = (f: 'action' | 'actorId' | 'targetId', value: string) => {
    const next = { ...filters, [f]: value };
    setForm(next);
    apply(next);
  };
  const active = FILTERS.some((f) => filters[f]);

  return (
    <section className="page">
      <PageHeader title="Audit log">
        Every change to your organisation, newest first: who made it, what it touched, and the request's reference (correlation id). Field names are listed;
        their values never are.
      </PageHeader>
      <form className="card audit-filters" onSubmit={submit} aria-label="Filter the audit log">
        <TextField label="Action" placeholder="e.g. user.create" value={form.action} onChange={(e) => setForm({ ...form, action: e.target.value })} />
        <TextField
          label="Actor id"
          placeholder="user, API key or staff id"
          value={form.actorId}
          onChange={(e) => setForm({ ...form, actorId: e.target.value })}
        />
        <TextField
          label="Target id"
          placeholder="the changed object's id"
          value={form.targetId}
          onChange={(e) => setForm({ ...form, targetId: e.target.value })}
        />
        <TextField label="From" type="date" value={form.from} onChange={(e) => setForm({ ...form, from: e.target.value })} />
        <TextField label="To (inclusive)" type="date" value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} />
        <div className="form-actions">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          {active ? (
            <Button
              onClick={() => {
                const none = { action: '', actorId: '', targetId: '', from: '', to: '' };
                setForm(none);
                apply(none);
              }}
            >
              Clear
            </Button>
          ) : null}
        </div>
      </form>
      <ListTable
        items={entries.data?.items}
        loading={entries.loading}
        error={entries.error}
        label="Audit entries"
        empty={active ? 'No entries match these filters.' : 'No entries yet.'}
        className="audit-table"
        columns={['When', 'Actor', 'Action', 'Target', 'Changed fields', 'Correlation id']}
        row={(e, i) => (
          <tr key={`${e.at}-${e.correlationId}-${i}`}>
            <td>
              <time dateTime={e.at}>{new Date(e.at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}</time>
            </td>
            <td>
              <span className="muted small">{ACTOR_TYPES[e.actor.type] ?? e.actor.type}</span>{' '}
              <button type="button" className="link-button" onClick={() => only('actorId', e.actor.id)} title={`Show only the entries of ${e.actor.id}`}>
                {names.get(e.actor.id) ?? <code>{e.actor.id}</code>}
              </button>
            </td>
            <td>
              <button type="button" className="link-button" onClick={() => only('action', e.action)} title="Show only this action">
                {e.action}
              </button>
            </td>
            <td>
              {e.targetId ? (
                <button type="button" className="link-button" onClick={() => only('targetId', e.targetId!)} title="Show only entries about this object">
                  <code>{e.targetId}</code>
                </button>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td>{e.changes.length ? e.changes.join(', ') : <span className="muted">—</span>}</td>
            <td>
              <code className="small">{e.correlationId ?? '—'}</code>
            </td>
          </tr>
        )}
      />
      <Pager pager={pager} nextCursor={entries.data?.nextCursor} />
    </section>
  );
}
