// Changing one's own password. The service then ends every session and refresh token of the
// account, this one included, so the page sends the person to sign in with the new password.
import { useState, type FormEvent } from 'react';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { useLimits, useOrg } from '../../shared/app-context.tsx';

export function PasswordCard() {
  const { api, orgId, me, session } = useOrg();
  const minLength = useLimits().passwordMinChars;
  const [form, setForm] = useState({ currentPassword: '', newPassword: '', confirm: '' });
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation(async (body: { currentPassword: string; newPassword: string }) => {
    await call(api.POST('/v1/orgs/{orgId}/users/{userId}/password', { params: { path: { orgId, userId: me.userId } }, body }));
    await session.signIn();
  });
  const err = change.error instanceof ApiError ? change.error : undefined;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (form.newPassword !== form.confirm) return setMismatch(true);
    setMismatch(false);
    void change.run({ currentPassword: form.currentPassword, newPassword: form.newPassword });
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p className="muted">Changing it signs you out everywhere; you then sign in again with the new one.</p>
      <TextField label="Current password" type="password" autoComplete="current-password" required value={form.currentPassword} onChange={set('currentPassword')} error={err?.field === 'currentPassword' ? err.message : undefined} />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        hint={`At least ${minLength} characters.`}
        value={form.newPassword}
        onChange={set('newPassword')}
        error={err?.field === 'newPassword' ? err.message : undefined}
      />
      <TextField label="New password again" type="password" autoComplete="new-password" required value={form.confirm} onChange={set('confirm')} error={mismatch ? 'The two new passwords differ.' : undefined} />
      {change.error && !['currentPassword', 'newPassword'].includes(err?.field ?? '') ? <ErrorMessage error={change.error} /> : null}
      <div className="form-actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="submit" variant="primary" disabled={change.pending}>
          Change password
        </Button>
      </div>
    </form>
  );
}
