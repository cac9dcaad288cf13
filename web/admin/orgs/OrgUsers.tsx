// An org's users, read-only, with their status (invited, active, suspended): staff look, the
// org's admins change them in the dashboard.
import { StatusPill } from '../lib/StatusPill.tsx';
import { day } from '../lib/format.ts';
import { useOrgUsers } from './api.ts';
import { PagedCard } from './PagedCard.tsx';

export function OrgUsers({ orgId }: { orgId: string }) {
  return (
    <PagedCard
      id="users-h"
      title="Users"
      empty="No users."
      columns={['Name', 'Email', 'Role', 'Status', 'TOTP', 'Added']}
      orgId={orgId}
      useList={useOrgUsers}
      row={(u) => (
        <tr key={u.userId}>
          <td>{u.name || '—'}</td>
          <td>{u.email}</td>
          <td>
            <StatusPill status={u.role} />
          </td>
          <td>
            <StatusPill status={u.status === 'suspended' ? 'disabled' : u.status} label={u.status} />
          </td>
          <td>{u.mfaEnabled ? 'on' : 'off'}</td>
          <td>{day(u.createdAt)}</td>
        </tr>
      )}
    />
  );
}
