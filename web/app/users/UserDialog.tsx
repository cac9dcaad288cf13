// Add a user (an invitation by mail) or edit one: profile fields, email and role with the owner
// rules shown beside the controls they limit.
import { useEffect, useState, type FormEvent } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { ApiError, fieldError as fieldErrorOf, isFieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { useOrg } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import type { User } from '../../shared/api/types.ts';
import { assignableRoles, emailLocked, OWNER_RULES, roleLocked } from './role-rules.ts';
import { InvitationLink } from './InvitationLink.tsx';
import { useUserActions, type UserFields } from './api.ts';

type Form = UserFields;
const FIELDS = ['email', 'name', 'title', 'department', 'phone', 'mobile', 'role'] as const;

const EMPTY: Form = { email: '', name: '', title: '', department: '', phone: '', mobile: '', role: 'member' };
const formOf = (u: User): Form => ({ email: u.email, name: u.name, title: u.title, department: u.department, phone: u.phone, mobile: u.mobile, role: u.role });

export function UserDialog({ open, user, onClose }: { open: boolean; user: User | undefined; onClose: () => void }) {
  const { me } = useOrg();
  const actions = useUserActions();
  const [form, setForm] = useState<Form>(EMPTY);
  const [invited, setInvited] = useState<{ email: string; url: string }>();
  useEffect(() => {
    if (open) {
      setForm(user ? formOf(user) : EMPTY);
      setInvited(undefined);
    }
  }, [open, user]);
  const save = useMutation(async (values: Form) => {
    if (user) {
      const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== user[k as keyof Form]));
      await actions.update(user, changed);
      notices.show({ kind: 'success', text: `${values.name || values.email} was saved.` });
      onClose();
    } else {
      const created = await actions.create(values);
      if (created.invitationUrl) setInvited({ email: created.email, url: created.invitationUrl });
      else {
        notices.show({ kind: 'success', text: `An invitation was sent to ${created.email}.` });
        onClose();
      }
    }
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the last save's outcome is cleared each time the dialog opens or closes
  useEffect(() => save.reset(), [open, save.reset]);

  const err = save.error instanceof ApiError ? save.error : undefined;
  const fieldError = (k: keyof Form) => fieldErrorOf(save.error, k);
  const conflict = err?.status === 409 && err.field === 'version';
  const lockRole = user ? roleLocked(me, user) : undefined;
  const lockEmail = user ? emailLocked(me, user) : undefined;
  const roles = assignableRoles(me);
  const set = (k: keyof Form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(form);
  };

  return (
    <Dialog title={user ? `Edit ${user.name || user.email}` : 'Add a user'} open={open} onClose={onClose} wide>
      {invited ? (
        <>
          <InvitationLink email={invited.email} url={invited.url} />
          <div className="form-actions">
            <Button variant="primary" onClick={onClose}>
              Done
            </Button>
          </div>
        </>
      ) : (
        <form onSubmit={onSubmit} aria-label={user ? 'Edit user' : 'Add a user'}>
          {!user ? <p className="muted">They get an email with a link to choose their password (valid 7 days).</p> : null}
          <div className="two-col">
            <div>
              <TextField
                label="Email"
                type="email"
                required
                value={form.email}
                onChange={set('email')}
                disabled={!!lockEmail}
                hint={lockEmail}
                error={fieldError('email')}
              />
              <TextField label="Name" value={form.name} onChange={set('name')} error={fieldError('name')} maxLength={maxLengthOf('createUser', 'name')} />
              <TextField
                label="Job title"
                value={form.title}
                onChange={set('title')}
                error={fieldError('title')}
                maxLength={maxLengthOf('createUser', 'title')}
              />
              <TextField
                label="Department"
                value={form.department}
                onChange={set('department')}
                error={fieldError('department')}
                maxLength={maxLengthOf('createUser', 'department')}
              />
            </div>
            <div>
              <TextField
                label="Phone"
                type="tel"
                value={form.phone}
                onChange={set('phone')}
                error={fieldError('phone')}
                maxLength={maxLengthOf('createUser', 'phone')}
              />
              <TextField
                label="Mobile"
                type="tel"
                value={form.mobile}
                onChange={set('mobile')}
                error={fieldError('mobile')}
                maxLength={maxLengthOf('createUser', 'mobile')}
              />
              <SelectField label="Role" value={form.role} onChange={set('role')} disabled={!!lockRole} hint={lockRole} error={fieldError('role')}>
                {(roles.includes(form.role) ? roles : [form.role, ...roles]).map((r) => (
                  <option key={r} value={r} disabled={!roles.includes(r)}>
                    {r[0]!.toUpperCase() + r.slice(1)}
                  </option>
                ))}
              </SelectField>
              <details className="rules">
                <summary>Who may change roles</summary>
                <ul>
                  {OWNER_RULES.map((rule) => (
                    <li key={rule}>{rule}</li>
                  ))}
                </ul>
              </details>
            </div>
          </div>
          {err && !isFieldError(err, FIELDS) ? (
            <ErrorMessage error={err}>
              {conflict ? <p>Someone changed this user while you edited. Close this dialog and open it again to see their version.</p> : null}
            </ErrorMessage>
          ) : null}
          {save.error && !err ? <ErrorMessage error={save.error} /> : null}
          <div className="form-actions">
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={save.pending}>
              {save.pending ? 'Saving…' : user ? 'Save' : 'Send invitation'}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
