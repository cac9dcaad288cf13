// Changing one's own password. The service then ends every session and refresh token of the
// account, this one included, so the page sends the person to sign in with the new password.
import { useState, type FormEvent } from 'react';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { fieldError, isFieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { useLimits, useOrg } from '../../shared/app-context.tsx';
import { useSecurityActions } from './api.ts';

export function PasswordCard() {
  const { session } = useOrg();
  const actions = useSecurityActions();
  const minLength = useLimits().passwordMinChars;
  const [form, setForm] = useState({ currentPassword: '', newPassword: '', confirm: '' });
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation(async (body: { currentPassword: string; newPassword: string }) => {
    await actions.changePassword(body);
    await session.signIn();
  });
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
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={form.currentPassword}
        onChange={set('currentPassword')}
        error={fieldError(change.error, 'currentPassword')}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        hint={`At least ${minLength} characters.`}
        value={form.newPassword}
        onChange={set('newPassword')}
        error={fieldError(change.error, 'newPassword')}
      />
      <TextField
        label="New password again"
        type="password"
        autoComplete="new-password"
        required
        value={form.confirm}
        onChange={set('confirm')}
        error={mismatch ? 'The two new passwords differ.' : undefined}
      />
      {change.error && !isFieldError(change.error, ['currentPassword', 'newPassword']) ? <ErrorMessage error={change.error} /> : null}
      <div className="form-actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="submit" variant="primary" disabled={change.pending}>
          Change password
        </Button>
      </div>
    </form>
  );
}
