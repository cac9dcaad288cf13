// An org's audit trail, newest first: who did what (people by name, staff by email), on what, with
// the correlation id to find it in logs.
import { when } from '../lib/format.ts';
import { useOrgAudit, useOrgUserById, useStaffNames } from './api.ts';
import { PagedCard } from './PagedCard.tsx';
import { AuditCells } from '../lib/AuditCells.tsx';

const KIND: Record<string, string> = { user: 'user', apiKey: 'API key', staff: 'staff', paymentProvider: 'payment provider', system: 'system' };

/** A person of the org by name (or email); the short id while loading or when they are gone. */
function UserName({ orgId, userId }: { orgId: string; userId: string }) {
  const user = useOrgUserById(orgId, userId, true);
  const name = user.data ? user.data.name || user.data.email : undefined;
  return name ? <span title={userId}>{name}</span> : <code className="small">{userId.slice(0, 8)}</code>;
}

function Actor({ orgId, actor, staffName }: { orgId: string; actor: { type: string; id: string }; staffName: (id: string) => string | undefined }) {
  if (actor.type === 'user') return <UserName orgId={orgId} userId={actor.id} />;
  const staff = actor.type === 'staff' ? staffName(actor.id) : undefined;
  return (
    <>
      {KIND[actor.type] ?? actor.type}{' '}
      {staff ? <span title={actor.id}>{staff}</span> : actor.type === 'system' ? null : <code className="small">{actor.id.slice(0, 8)}</code>}
    </>
  );
}

export function OrgAudit({ orgId }: { orgId: string }) {
  const staffName = useStaffNames();
  return (
    <PagedCard
      id="audit-h"
      title="Audit"
      empty="Nothing recorded yet."
      columns={['When', 'Actor', 'Action', 'Target', 'Correlation id']}
      orgId={orgId}
      useList={useOrgAudit}
      row={(e, i) => (
        <tr key={`${e.at}-${e.action}-${i}`}>
          <td className="nowrap">{when(e.at)}</td>
          <td>
            <Actor orgId={orgId} actor={e.actor} staffName={staffName} />
          </td>
          <AuditCells entry={e} target={e.action.startsWith('user.') && e.targetId ? <UserName orgId={orgId} userId={e.targetId} /> : undefined} />
        </tr>
      )}
    />
  );
}
