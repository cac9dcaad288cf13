// The staff of this stage: invite one, disable one, reset another's TOTP (a lost phone). Nobody
// disables themselves or resets their own TOTP: the API refuses, and the page does not offer it.
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { ListTable, actionsColumn } from '../../shared/components/ListTable.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { useApp } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import { CursorPager } from '../lib/CursorPager.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import { day } from '../lib/format.ts';
import type { StaffMember } from '../lib/types.ts';
import { useStaff, useStaffActions } from './api.ts';
import { InviteDialog } from './InviteDialog.tsx';

type Pending = { kind: 'disable' | 'reset'; member: StaffMember };

export default function StaffPage() {
  const { me } = useApp();
  const [params] = useSearchParams();
  const { data, error, loading } = useStaff(params.get('cursor') ?? undefined);
  const actions = useStaffActions();
  const [inviting, setInviting] = useState(false);
  const [pending, setPending] = useState<Pending | undefined>();
  const act = useMutation(async (p: Pending) => (p.kind === 'disable' ? actions.disable(p.member.userId) : actions.resetMfa(p.member.userId)));

  const confirm = async () => {
    if (!pending) return;
    const done = await act.run(pending);
    setPending(undefined);
    if (done) {
      notices.show({
        kind: 'success',
        text: pending.kind === 'disable' ? `${done.email} is disabled.` : `${done.email} enrols a new authenticator at the next sign-in.`,
      });
    }
  };

  return (
    <section className="page">
      <PageHeader
        title="Staff"
        actions={
          <Button variant="primary" onClick={() => setInviting(true)}>
            Invite staff
          </Button>
        }
      >
        The people who run this service. Each signs in with a password and a code from an authenticator app.
      </PageHeader>
      <ListTable
        items={data?.items}
        loading={loading}
        error={error ?? act.error}
        label="Staff"
        empty="No staff yet."
        columns={['Email', 'Name', 'Status', 'TOTP', 'Added', actionsColumn]}
        row={(m) => {
          const self = m.userId === me.userId;
          const live = m.status !== 'disabled';
          return (
            <tr key={m.userId}>
              <td>
                {m.email} {self ? <span className="pill">you</span> : null}
              </td>
              <td>{m.name || '—'}</td>
              <td>
                <StatusPill status={m.status} />
              </td>
              <td>{m.mfaEnabled ? 'enrolled' : 'not enrolled'}</td>
              <td>{day(m.createdAt)}</td>
              <td>
                {!self && live ? (
                  <div className="cell-actions">
                    {m.mfaEnabled ? (
                      <Button className="btn-small" onClick={() => setPending({ kind: 'reset', member: m })} aria-label={`Reset TOTP of ${m.email}`}>
                        Reset TOTP
                      </Button>
                    ) : null}
                    <Button className="btn-small" variant="danger" onClick={() => setPending({ kind: 'disable', member: m })} aria-label={`Disable ${m.email}`}>
                      Disable
                    </Button>
                  </div>
                ) : null}
              </td>
            </tr>
          );
        }}
      />
      <CursorPager nextCursor={data?.nextCursor} label="Staff pages" />
      <InviteDialog open={inviting} onClose={() => setInviting(false)} invite={actions.invite} />
      <ConfirmDialog
        title={pending?.kind === 'disable' ? `Disable ${pending.member.email}?` : `Reset the TOTP of ${pending?.member.email ?? ''}?`}
        open={pending !== undefined}
        onCancel={() => setPending(undefined)}
        onConfirm={() => void confirm()}
        confirmLabel={pending?.kind === 'disable' ? 'Disable' : 'Reset TOTP'}
        pending={act.pending}
      >
        <p>
          {pending?.kind === 'disable'
            ? 'They are signed out everywhere at once and can no longer sign in.'
            : 'They are signed out everywhere, and enrol a new authenticator app at their next sign-in.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}
