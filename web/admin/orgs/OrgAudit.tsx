// An org's audit trail, newest first: who did what, with the correlation id to find it in logs.
import { when } from '../lib/format.ts';
import { useOrgAudit } from './api.ts';
import { PagedCard } from './PagedCard.tsx';
import { AuditCells } from '../lib/AuditCells.tsx';

export function OrgAudit({ orgId }: { orgId: string }) {
  return (
    <PagedCard
      id="audit-h"
      title="Audit"
      empty="Nothing recorded yet."
      columns={['When', 'Actor', 'Action', 'Target', 'Correlation id']}
      useList={(cursor) => useOrgAudit(orgId, cursor)}
      row={(e, i) => (
        <tr key={`${e.at}-${e.action}-${i}`}>
          <td className="nowrap">{when(e.at)}</td>
          <td>
            {e.actor.type} <code className="small">{e.actor.id.slice(0, 8)}</code>
          </td>
          <AuditCells entry={e} />
        </tr>
      )}
    />
  );
}
