// The org's people for admins and owners: search, filters, sorting and paging; add (an
// invitation), edit, change role, remove, resend an invitation; import from a CSV file.
import { useDeferredValue, useState } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { TextField, SelectField } from '../../shared/components/Field.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { ListTable, actionsColumn } from '../../shared/components/ListTable.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import type { User } from '../../shared/api/types.ts';
import { NO_FILTERS, useGroups, useUserActions, useUsers, type UserFilters } from './api.ts';
import { deleteLocked } from './role-rules.ts';
import { UserDialog } from './UserDialog.tsx';
import { ImportDialog } from './ImportDialog.tsx';
import { InvitationLink } from './InvitationLink.tsx';
import { SignatureDialog } from './SignatureDialog.tsx';

type SortKey = 'name' | 'role' | 'department' | 'status';

export default function UsersPage() {
  const [filters, setFilters] = useState<UserFilters>(NO_FILTERS);
  const deferred = useDeferredValue(filters);
  const pager = usePager();
  // The service sorts (and pages in that order): the column buttons change the list's order, not one page's.
  const [sort, setSortState] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'name', dir: 1 });
  const users = useUsers(deferred, pager.cursor, `${sort.dir === -1 ? '-' : ''}${sort.key}`);
  const setSort = (next: { key: SortKey; dir: 1 | -1 }) => {
    setSortState(next);
    pager.reset();
  };
  const [dialog, setDialog] = useState<
    { kind: 'add' } | { kind: 'edit'; user: User } | { kind: 'signature'; user: User } | { kind: 'import' } | { kind: 'delete'; user: User } | undefined
  >();

  const setFilter = <K extends keyof UserFilters>(key: K, value: UserFilters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    pager.reset();
  };
  const filtered = Object.values(filters).some((v) => v !== '');
  const groups = useGroups().data?.items ?? [];

  return (
    <section className="page">
      <PageHeader
        title="Users"
        actions={
          <>
            <Button onClick={() => setDialog({ kind: 'import' })}>Import from CSV</Button>
            <Button variant="primary" onClick={() => setDialog({ kind: 'add' })}>
              Add user
            </Button>
          </>
        }
      >
        Everyone whose signature the organisation manages. Each person takes a seat, invited or not; a suspended person does not (and cannot sign in).
      </PageHeader>

      <search aria-label="Find users">
        <form className="toolbar" onSubmit={(e) => e.preventDefault()}>
          <TextField label="Search" type="search" placeholder="Name or email" value={filters.q} onChange={(e) => setFilter('q', e.target.value)} />
          <SelectField label="Role" value={filters.role} onChange={(e) => setFilter('role', e.target.value as UserFilters['role'])}>
            <option value="">All roles</option>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </SelectField>
          <TextField label="Department" value={filters.department} onChange={(e) => setFilter('department', e.target.value)} />
          <SelectField label="Status" value={filters.status} onChange={(e) => setFilter('status', e.target.value as UserFilters['status'])}>
            <option value="">Everyone</option>
            <option value="invited">Invited</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
          </SelectField>
          {groups.length > 0 ? (
            <SelectField label="Group" value={filters.group} onChange={(e) => setFilter('group', e.target.value)}>
              <option value="">All groups</option>
              {groups.map((g) => (
                <option key={g.groupId} value={g.groupId}>
                  {g.displayName} ({g.memberCount})
                </option>
              ))}
            </SelectField>
          ) : null}
          {filtered ? (
            <Button
              onClick={() => {
                setFilters(NO_FILTERS);
                pager.reset();
              }}
            >
              Clear
            </Button>
          ) : null}
        </form>
      </search>

      <ListTable
        items={users.data?.items}
        loading={users.loading}
        error={users.error}
        label={`Users${pager.page > 1 ? `, page ${pager.page}` : ''}; the column buttons sort the whole list.`}
        empty={filtered ? 'No user matches these filters.' : 'No users yet.'}
        busy={users.loading}
        className="users-table"
        columns={[
          <SortHeader key="name" label="Name" k="name" sort={sort} setSort={setSort} />,
          <SortHeader key="role" label="Role" k="role" sort={sort} setSort={setSort} />,
          <SortHeader key="department" label="Department" k="department" sort={sort} setSort={setSort} />,
          <SortHeader key="status" label="Status" k="status" sort={sort} setSort={setSort} />,
          actionsColumn,
        ]}
        row={(u) => (
          <UserRow
            key={u.userId}
            user={u}
            onSignature={() => setDialog({ kind: 'signature', user: u })}
            onEdit={() => setDialog({ kind: 'edit', user: u })}
            onDelete={() => setDialog({ kind: 'delete', user: u })}
          />
        )}
      />
      <Pager pager={pager} nextCursor={users.data?.nextCursor} />

      <UserDialog
        open={dialog?.kind === 'add' || dialog?.kind === 'edit'}
        user={dialog?.kind === 'edit' ? dialog.user : undefined}
        onClose={() => setDialog(undefined)}
      />
      <ImportDialog open={dialog?.kind === 'import'} onClose={() => setDialog(undefined)} />
      {dialog?.kind === 'signature' ? <SignatureDialog user={dialog.user} onClose={() => setDialog(undefined)} /> : null}
      {dialog?.kind === 'delete' ? <DeleteUser user={dialog.user} onClose={() => setDialog(undefined)} /> : null}
    </section>
  );
}

function SortHeader({
  label,
  k,
  sort,
  setSort,
}: {
  label: string;
  k: SortKey;
  sort: { key: SortKey; dir: 1 | -1 };
  setSort: (s: { key: SortKey; dir: 1 | -1 }) => void;
}) {
  const active = sort.key === k;
  return (
    <th scope="col" aria-sort={active ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort" onClick={() => setSort({ key: k, dir: active && sort.dir === 1 ? -1 : 1 })}>
        {label} <span aria-hidden="true">{active ? (sort.dir === 1 ? '▲' : '▼') : '↕'}</span>
      </button>
    </th>
  );
}

function UserRow({ user, onSignature, onEdit, onDelete }: { user: User; onSignature: () => void; onEdit: () => void; onDelete: () => void }) {
  const { me } = useOrg();
  const actions = useUserActions();
  const [link, setLink] = useState<string>();
  const resend = useMutation(async () => {
    const answer = await actions.resendInvitation(user);
    if (answer.invitationUrl) setLink(answer.invitationUrl);
    else notices.show({ kind: 'success', text: `A new invitation was sent to ${user.email}.` });
  });
  const suspended = user.status === 'suspended';
  const setStatus = useMutation(async () => {
    await actions.setStatus(user, suspended ? 'active' : 'suspended');
    notices.show({ kind: 'success', text: `${user.name || user.email} is ${suspended ? 'restored' : 'suspended'}.` });
  });
  const who = user.name || user.email;
  const locked = deleteLocked(me, user);
  return (
    <tr>
      <td>
        <strong>{user.name || '—'}</strong>
        {user.userId === me.userId ? <span className="muted small"> (you)</span> : null}
        <br />
        <span className="muted small">{user.email}</span>
      </td>
      <td data-label="Role">
        <span className="pill">{user.role}</span>
      </td>
      <td data-label="Department">{user.department || <span className="muted">—</span>}</td>
      <td data-label="Status">
        {suspended ? (
          <span className="pill">Suspended</span>
        ) : user.status === 'invited' ? (
          <span className="pill pill-warning">Invited</span>
        ) : (
          <span className="pill pill-success">Active</span>
        )}
        {user.mfaEnabled ? <span className="muted small"> · 2-step</span> : null}
      </td>
      <td>
        <div className="cell-actions">
          <Button className="btn-small" onClick={onSignature} aria-label={`Signature of ${who}`}>
            Signature
          </Button>
          <Button className="btn-small" onClick={onEdit} aria-label={`Edit ${who}`}>
            Edit
          </Button>
          {user.status === 'invited' ? (
            <Button className="btn-small" onClick={() => void resend.run()} disabled={resend.pending} aria-label={`Resend invitation to ${who}`}>
              Resend invitation
            </Button>
          ) : null}
          {user.userId !== me.userId && user.role !== 'owner' ? (
            <Button
              className="btn-small"
              onClick={() => void setStatus.run()}
              disabled={setStatus.pending}
              aria-label={`${suspended ? 'Restore' : 'Suspend'} ${who}`}
            >
              {suspended ? 'Restore' : 'Suspend'}
            </Button>
          ) : null}
          {user.userId !== me.userId ? (
            <Button className="btn-small" variant="danger" onClick={onDelete} disabled={!!locked} title={locked} aria-label={`Remove ${who}`}>
              Remove
            </Button>
          ) : null}
        </div>
        <ErrorMessage error={resend.error ?? setStatus.error} />
        {link ? <InvitationLink email={user.email} url={link} /> : null}
      </td>
    </tr>
  );
}

function DeleteUser({ user, onClose }: { user: User; onClose: () => void }) {
  const actions = useUserActions();
  const remove = useMutation(async () => {
    await actions.remove(user);
    notices.show({ kind: 'success', text: `${user.name || user.email} was removed.` });
    onClose();
  });
  return (
    <ConfirmDialog
      title={`Remove ${user.name || user.email}?`}
      open
      onCancel={onClose}
      onConfirm={() => void remove.run()}
      confirmLabel="Remove user"
      pending={remove.pending}
    >
      <p>{user.email} can no longer sign in, their signature stops rendering, and their seat is freed. Their past actions stay in the audit log.</p>
      <ErrorMessage error={remove.error} />
    </ConfirmDialog>
  );
}
