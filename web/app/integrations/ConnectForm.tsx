// Connecting Google Workspace: the service account's JSON key (a file, read in the browser and sent
// as the JSON object it is), the admin address the directory is read as, and what to keep in step.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { fieldError as fieldErrorOf } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { useGoogleActions, type GoogleIntegration } from './api.ts';

export function ConnectForm({ current, onDone }: { current: GoogleIntegration | null; onDone?: () => void }) {
  const actions = useGoogleActions();
  const [key, setKey] = useState<Record<string, unknown> | undefined>(undefined);
  const [keyName, setKeyName] = useState('');
  const [keyError, setKeyError] = useState<string | undefined>(undefined);
  const [adminEmail, setAdminEmail] = useState(current?.adminEmail ?? '');
  const [syncUsers, setSyncUsers] = useState(current?.syncUsers ?? true);
  const [pushSignatures, setPushSignatures] = useState(current?.pushSignatures ?? true);

  const readKey = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    setKey(undefined);
    setKeyError(undefined);
    if (!file) return;
    setKeyName(file.name);
    try {
      const parsed: unknown = JSON.parse(await file.text());
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      setKey(parsed as Record<string, unknown>);
    } catch {
      setKeyError('This file is not JSON. Choose the .json key file Google downloaded for the service account.');
    }
  };

  const save = useMutation(async () => {
    await actions.save({ adminEmail: adminEmail.trim(), syncUsers, pushSignatures, ...(key ? { serviceAccountKey: key } : {}) });
    notices.show({ kind: 'success', text: current ? 'Google Workspace settings saved.' : 'Google Workspace connected: the first sync has started.' });
    onDone?.();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  const fieldError = (field: string) => fieldErrorOf(save.error, field);
  const serverKeyError = fieldError('body.serviceAccountKey');

  return (
    <form onSubmit={submit} aria-label={current ? 'Google Workspace settings' : 'Connect Google Workspace'}>
      <div className="field">
        <label htmlFor="google-key">Service account key (JSON){current ? ' — leave empty to keep the current key' : ''}</label>
        <input
          id="google-key"
          type="file"
          accept="application/json,.json"
          onChange={(e) => void readKey(e)}
          aria-describedby="google-key-hint"
          required={!current}
        />
        <p className="field-hint" id="google-key-hint">
          {keyName && key ? `Read ${keyName}. ` : ''}Stored encrypted; it is never shown again, not even to you.
        </p>
        {keyError || serverKeyError ? <p className="field-error">{keyError ?? serverKeyError}</p> : null}
      </div>
      <TextField
        label="Admin address"
        type="email"
        required
        value={adminEmail}
        onChange={(e) => setAdminEmail(e.target.value)}
        hint="A Workspace administrator who may read users: the directory is read as this address."
        error={fieldError('body.adminEmail')}
      />
      <fieldset className="field">
        <legend>Keep in step</legend>
        <label>
          <input type="checkbox" checked={syncUsers} onChange={(e) => setSyncUsers(e.target.checked)} /> Sync users from the directory (every hour, and on
          demand)
        </label>
        <label>
          <input type="checkbox" checked={pushSignatures} onChange={(e) => setPushSignatures(e.target.checked)} /> Push every user's signature into Gmail
        </label>
      </fieldset>
      {save.error && !serverKeyError && !fieldError('body.adminEmail') ? <ErrorMessage error={save.error} /> : null}
      <div className="form-actions">
        {onDone ? <Button onClick={onDone}>Cancel</Button> : null}
        <Button variant="primary" type="submit" disabled={save.pending || Boolean(keyError)}>
          {save.pending ? 'Saving…' : current ? 'Save settings' : 'Connect'}
        </Button>
      </div>
    </form>
  );
}
