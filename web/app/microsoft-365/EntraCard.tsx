// Entra ID directory sync: connect an app registration, see how syncs went, sync now or preview
// what a sync would change, disconnect.
import { useState, type FormEvent } from 'react';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { fieldError as fieldErrorOf } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { useEntra, useMicrosoftActions, when, type MicrosoftIntegration, type SyncCounts } from './api.ts';

export function EntraCard() {
  const entra = useEntra();
  const [editing, setEditing] = useState(false);
  return (
    <div className="card ms-card">
      <h2>Users from Entra ID</h2>
      {entra.loading && entra.data === undefined ? <Loading /> : null}
      <ErrorMessage error={entra.error} />
      {entra.data === null || editing ? <ConnectForm current={entra.data ?? null} onDone={() => setEditing(false)} /> : null}
      {entra.data && !editing ? <Connected entra={entra.data} onEdit={() => setEditing(true)} /> : null}
    </div>
  );
}

function ConnectForm({ current, onDone }: { current: MicrosoftIntegration | null; onDone: () => void }) {
  const actions = useMicrosoftActions();
  const [tenantId, setTenantId] = useState(current?.tenantId ?? '');
  const [clientId, setClientId] = useState(current?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const connect = useMutation(async () => {
    await actions.connectEntra({ tenantId: tenantId.trim(), clientId: clientId.trim(), clientSecret });
    notices.show({ kind: 'success', text: 'Connected to Entra ID: the first sync is under way.' });
    onDone();
  });
  const fieldError = (f: string) => fieldErrorOf(connect.error, `body.${f}`);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void connect.run();
  };
  return (
    <form onSubmit={submit}>
      <ol>
        <li>
          In the Entra admin center (entra.microsoft.com), open <strong>App registrations → New registration</strong>, name it, and register it.
        </li>
        <li>
          Under <strong>API permissions</strong>, add the Microsoft Graph <strong>application</strong> permission <code>User.Read.All</code> and grant admin
          consent.
        </li>
        <li>
          Under <strong>Certificates &amp; secrets</strong>, make a client secret and copy its value. Then fill in the form below.
        </li>
      </ol>
      <TextField
        label="Directory (tenant) ID"
        hint="On the app's overview page, or your domain (contoso.onmicrosoft.com)."
        value={tenantId}
        required
        onChange={(e) => setTenantId(e.target.value)}
        error={fieldError('tenantId')}
      />
      <TextField label="Application (client) ID" value={clientId} required onChange={(e) => setClientId(e.target.value)} error={fieldError('clientId')} />
      <TextField
        label="Client secret"
        hint="Its value, not its ID. Stored encrypted, never shown again."
        type="password"
        value={clientSecret}
        required
        autoComplete="off"
        onChange={(e) => setClientSecret(e.target.value)}
        error={fieldError('clientSecret')}
      />
      {connect.error && !fieldError('tenantId') && !fieldError('clientId') && !fieldError('clientSecret') ? <ErrorMessage error={connect.error} /> : null}
      <div className="page-actions">
        <Button variant="primary" type="submit" disabled={connect.pending}>
          {connect.pending ? 'Connecting…' : current ? 'Save' : 'Connect'}
        </Button>
        {current ? <Button onClick={onDone}>Cancel</Button> : null}
      </div>
    </form>
  );
}

function Connected({ entra, onEdit }: { entra: MicrosoftIntegration; onEdit: () => void }) {
  const actions = useMicrosoftActions();
  const [disconnecting, setDisconnecting] = useState(false);
  const [preview, setPreview] = useState<SyncCounts | null>(null);
  const sync = useMutation(async () => {
    await actions.syncEntra();
    notices.show({ kind: 'success', text: 'Sync started: this page shows its result when it is done.' });
  });
  const dryRun = useMutation(async () => setPreview(await actions.previewEntraSync()));
  const disconnect = useMutation(async () => {
    await actions.disconnectEntra();
    setDisconnecting(false);
    notices.show({ kind: 'success', text: 'Disconnected from Entra ID. Synced users stay.' });
  });
  const run = entra.lastRun;
  return (
    <>
      <dl className="facts">
        <dt>Tenant</dt>
        <dd>
          <code>{entra.tenantId}</code>
        </dd>
        <dt>Application</dt>
        <dd>
          <code>{entra.clientId}</code>
        </dd>
        <dt>Last sync</dt>
        <dd>{when(entra.lastSyncAt)}</dd>
        <dt>Next sync</dt>
        <dd>{when(entra.nextSyncAt)}</dd>
        {run ? (
          <>
            <dt>Last run</dt>
            <dd>
              {run.created} created, {run.updated} updated, {run.deleted} removed, {run.skipped} skipped
            </dd>
          </>
        ) : null}
      </dl>
      {entra.lastError ? (
        <div className="alert alert-warning" role="alert">
          <p>
            <strong>The last sync failed ({when(entra.lastErrorAt)}):</strong> {entra.lastError}
          </p>
        </div>
      ) : null}
      <div className="page-actions">
        <Button variant="primary" onClick={() => void sync.run()} disabled={sync.pending}>
          Sync now
        </Button>
        <Button onClick={() => void dryRun.run()} disabled={dryRun.pending}>
          {dryRun.pending ? 'Reading the directory…' : 'Preview a sync'}
        </Button>
        <Button onClick={onEdit}>Change credentials</Button>
        <Button variant="danger" onClick={() => setDisconnecting(true)}>
          Disconnect
        </Button>
      </div>
      <ErrorMessage error={sync.error ?? dryRun.error} />
      {preview ? (
        <p role="status">
          A sync now would create {preview.created}, update {preview.updated}, remove {preview.deleted} and skip {preview.skipped} users. Nothing was changed.
        </p>
      ) : null}
      <ConfirmDialog
        title="Disconnect Entra ID?"
        open={disconnecting}
        confirmLabel="Disconnect"
        pending={disconnect.pending}
        onCancel={() => setDisconnecting(false)}
        onConfirm={() => void disconnect.run()}
      >
        <p>Syncs stop. The users they made stay; remove them on the Users page if you no longer want them.</p>
        <ErrorMessage error={disconnect.error} />
      </ConfirmDialog>
    </>
  );
}
