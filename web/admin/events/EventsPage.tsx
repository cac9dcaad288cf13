// Payment events as they arrived: filter by status, type or org; open one for its stored payload
// and error; replay one, or every failed one, and see the result of each.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { ListTable, actionsColumn } from '../../shared/components/ListTable.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { useSearch } from '../lib/use-search.ts';
import { CursorPager } from '../lib/CursorPager.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import { EVENT_STATUSES, when } from '../lib/format.ts';
import type { PaymentEvent, ReplayResult } from '../lib/types.ts';
import { useEvents, useReplays } from './api.ts';
import { EventDialog } from './EventDialog.tsx';
import { ReplayResults } from './ReplayResults.tsx';

const TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
];

export default function EventsPage() {
  const search = useSearch(['status', 'type', 'orgId'] as const);
  const { data, error, loading } = useEvents(search.query, search.cursor);
  const replays = useReplays();
  const [orgId, setOrgId] = useState(search.values.orgId);
  const [open, setOpen] = useState<string | undefined>();
  const [confirmAll, setConfirmAll] = useState(false);
  const [results, setResults] = useState<ReplayResult[] | undefined>();
  const replayOne = useMutation(replays.one);
  const replayAll = useMutation(replays.allFailed);

  const one = async (eventId: string) => {
    const result = await replayOne.run(eventId);
    if (result) setResults([result]);
  };
  const all = async () => {
    const found = await replayAll.run();
    setConfirmAll(false);
    if (found) setResults(found);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    search.set({ orgId: orgId.trim() });
  };

  return (
    <section className="page wide">
      <PageHeader
        title="Payment events"
        actions={
          <Button variant="primary" onClick={() => setConfirmAll(true)}>
            Replay all failed
          </Button>
        }
      >
        Events from the payment provider, newest first. A failed event keeps its payload and error until it is replayed.
      </PageHeader>
      <search aria-label="Payment events">
        <form className="toolbar" onSubmit={submit}>
          <SelectField label="Status" value={search.values.status} onChange={(e) => search.set({ status: e.target.value })}>
            <option value="">Any</option>
            {EVENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </SelectField>
          <SelectField label="Type" value={search.values.type} onChange={(e) => search.set({ type: e.target.value })}>
            <option value="">Any</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
          <TextField label="Org id" value={orgId} onChange={(e) => setOrgId(e.target.value)} />
          <Button type="submit">Filter</Button>
        </form>
      </search>
      <ListTable
        items={data?.items}
        loading={loading}
        error={error ?? replayOne.error ?? replayAll.error}
        label="Payment events"
        empty="No event matches."
        columns={['Received', 'Type', 'Status', 'Organisation', 'Outcome or error', actionsColumn]}
        row={(e) => <EventRow key={e.id} event={e} onOpen={() => setOpen(e.id)} onReplay={() => void one(e.id)} pending={replayOne.pending} />}
      />
      <CursorPager nextCursor={data?.nextCursor} label="Event pages" />
      <EventDialog eventId={open} onClose={() => setOpen(undefined)} onReplay={(id) => void one(id)} />
      <ConfirmDialog
        title="Replay every failed event?"
        open={confirmAll}
        onCancel={() => setConfirmAll(false)}
        onConfirm={() => void all()}
        confirmLabel="Replay all failed"
        pending={replayAll.pending}
      >
        <p>Each failed event is applied again, oldest first. One that fails again stays failed with its new error.</p>
      </ConfirmDialog>
      <ReplayResults results={results} onClose={() => setResults(undefined)} />
    </section>
  );
}

function EventRow({ event: e, onOpen, onReplay, pending }: { event: PaymentEvent; onOpen: () => void; onReplay: () => void; pending: boolean }) {
  const replayable = e.status === 'failed' || e.status === 'pending';
  return (
    <tr>
      <td className="nowrap">{when(e.receivedAt)}</td>
      <td>
        <code>{e.type}</code>
      </td>
      <td>
        <StatusPill status={e.status} />
      </td>
      <td>{e.orgId ? <Link to={`/orgs/${e.orgId}`}>{e.orgId.slice(0, 8)}</Link> : <span className="muted">{e.customerId ?? 'none'}</span>}</td>
      <td className="wrap">{e.error ?? e.outcome ?? '—'}</td>
      <td>
        <div className="cell-actions">
          <Button className="btn-small" onClick={onOpen} aria-label={`Details of ${e.id}`}>
            Details
          </Button>
          {replayable ? (
            <Button className="btn-small" onClick={onReplay} disabled={pending} aria-label={`Replay ${e.id}`}>
              Replay
            </Button>
          ) : null}
        </div>
      </td>
    </tr>
  );
}
