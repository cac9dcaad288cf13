// The payment events applied to an org, newest first, with their outcome (or error).
import { Link } from 'react-router';
import { StatusPill } from '../lib/StatusPill.tsx';
import { when } from '../lib/format.ts';
import { useOrgEvents } from './api.ts';
import { PagedCard } from './PagedCard.tsx';

export function OrgEvents({ orgId }: { orgId: string }) {
  return (
    <PagedCard
      id="events-h"
      title="Payment events"
      intro={
        <p className="muted small">
          Newest first. <Link to={`/events?orgId=${orgId}`}>Open in Payment events</Link> to see payloads and replay.
        </p>
      }
      empty="No payment event names this organisation."
      columns={['Created', 'Type', 'Status', 'Outcome']}
      orgId={orgId}
      useList={useOrgEvents}
      row={(e) => (
        <tr key={e.id}>
          <td className="nowrap">{when(e.createdAt ?? e.receivedAt)}</td>
          <td>
            <code>{e.type}</code>
          </td>
          <td>
            <StatusPill status={e.status} />
          </td>
          <td className="wrap">{e.error ?? e.outcome ?? '—'}</td>
        </tr>
      )}
    />
  );
}
