// Integrations: connect Google Workspace, test the connection, sync the directory (with a preview),
// push every signature, and see where each user's signature stands; SCIM provisioning's card.
import { useState } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog, Dialog } from '../../shared/components/Dialog.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import type { Schemas } from '../../shared/api/types.ts';
import { ConnectForm } from './ConnectForm.tsx';
import { ScimCard } from './ScimCard.tsx';
import { DeploymentsTable } from './DeploymentsTable.tsx';
import { useGoogleActions, useGoogleIntegration, useJob, type GoogleIntegration } from './api.ts';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');

export default function IntegrationsPage() {
  const connection = useGoogleIntegration();
  return (
    <section className="page">
      <PageHeader title="Integrations">
        Keep your users in step with your Google Workspace directory, and every user's Gmail signature in step with your default template.
      </PageHeader>
      {connection.loading && connection.data === undefined ? <Loading /> : null}
      <ErrorMessage error={connection.error} />
      {connection.data === null ? <NotConnected /> : null}
      {connection.data ? <Connected google={connection.data} /> : null}
      <ScimCard />
    </section>
  );
}

function NotConnected() {
  return (
    <div className="two-col">
      <div className="card">
        <h2>Connect Google Workspace</h2>
        <ConnectForm current={null} />
      </div>
      <div className="card">
        <h2>Before you connect</h2>
        <ol>
          <li>In Google Cloud, enable the Admin SDK API and the Gmail API, create a service account, and download a JSON key for it.</li>
          <li>
            In the Google Admin console (Security → Access and data control → API controls → Domain-wide delegation), add the service account's client ID with
            the scopes <code>admin.directory.user.readonly</code> and <code>gmail.settings.basic</code> (the full list is shown once connected).
          </li>
          <li>Name an administrator who may read users: the directory is read as this address.</li>
        </ol>
        <p className="muted">A new delegation can take a while (Google says up to 24 hours) before it works; “Test connection” tells you.</p>
      </div>
    </div>
  );
}

function Connected({ google }: { google: GoogleIntegration }) {
  const actions = useGoogleActions();
  const [editing, setEditing] = useState(false);
  const [disconnecting, setDisconnecting] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useJob(jobId);
  const [test, setTest] = useState<Schemas['GoogleConnectionTest'] | null>(null);
  const [preview, setPreview] = useState<Schemas['DirectorySyncResult'] | null>(null);

  const runTest = useMutation(async () => setTest(await actions.test()));
  const runPreview = useMutation(async () => setPreview(await actions.previewSync()));
  const start = useMutation(async (what: 'sync' | 'push') => setJobId(await actions.start(what)));
  const disconnect = useMutation(async () => {
    await actions.disconnect();
    setDisconnecting(false);
    notices.show({ kind: 'success', text: 'Google Workspace disconnected.' });
  });
  const running = job && (job.state === 'queued' || job.state === 'running');

  return (
    <>
      <section className="card" aria-labelledby="google-title">
        <h2 id="google-title">Google Workspace</h2>
        {google.lastError ? (
          <div className="alert alert-error" role="alert">
            <p>
              <strong>The last {google.lastSyncAt && google.lastErrorAt && google.lastErrorAt < google.lastSyncAt ? 'push' : 'run'} failed</strong> (
              {when(google.lastErrorAt)}): {google.lastError}
            </p>
          </div>
        ) : null}
        <p>
          Service account <code>{google.clientEmail}</code>; the directory is read as <strong>{google.adminEmail}</strong>.
        </p>
        <dl className="grid">
          <div className="stat">
            <dt>Last sync</dt>
            <dd className="small">{google.syncUsers ? when(google.lastSyncAt) : 'off'}</dd>
          </div>
          <div className="stat">
            <dt>Last push</dt>
            <dd className="small">{google.pushSignatures ? when(google.lastPushAt) : 'off'}</dd>
          </div>
          <div className="stat">
            <dt>Signatures in Gmail</dt>
            <dd>
              {google.counts.deployed}{' '}
              <span className="muted small">
                · {google.counts.failed} failed · {google.counts.skipped} skipped
              </span>
            </dd>
          </div>
        </dl>
        <details>
          <summary>Domain-wide delegation to grant (client ID {google.clientId})</summary>
          <p>In the Google Admin console, add the client ID with these scopes:</p>
          <pre className="mono">{google.scopes.join(',')}</pre>
          <CopyButton label="Copy scopes" text={google.scopes.join(',')} />
        </details>
        {google.lastSync && google.lastSync.skippedUsers.length > 0 ? (
          <details>
            <summary>{google.lastSync.skippedUsers.length} user(s) skipped by the last sync</summary>
            <ul>
              {google.lastSync.skippedUsers.map((u) => (
                <li key={u.email}>
                  {u.email}: {u.reason.replaceAll('_', ' ')}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
        <div className="form-actions">
          <Button onClick={() => void runTest.run()} disabled={runTest.pending}>
            {runTest.pending ? 'Testing…' : 'Test connection'}
          </Button>
          <Button onClick={() => void runPreview.run()} disabled={runPreview.pending || !google.syncUsers}>
            Preview sync
          </Button>
          <Button onClick={() => void start.run('sync')} disabled={Boolean(running) || !google.syncUsers}>
            Sync now
          </Button>
          <Button variant="primary" onClick={() => void start.run('push')} disabled={Boolean(running) || !google.pushSignatures}>
            Push signatures
          </Button>
          <Button onClick={() => setEditing(true)}>Settings</Button>
          <Button variant="danger" onClick={() => setDisconnecting(true)}>
            Disconnect
          </Button>
        </div>
        <ErrorMessage error={runTest.error ?? runPreview.error ?? start.error} />
        {job ? (
          <p role="status" aria-live="polite" className="muted">
            {job.kind === 'google.sync' ? 'Sync' : 'Push'}: {job.state}
            {job.progress.total ? ` — ${job.progress.done ?? 0} of ${job.progress.total}` : ''}
            {job.error ? ` — ${job.error}` : ''}
          </p>
        ) : null}
        {test ? (
          <div className={`alert ${test.ok ? 'alert-info' : 'alert-error'}`} role="status" aria-label="Connection test">
            {test.steps.map((s) => (
              <p key={s.step}>
                {s.ok ? '✓' : '✗'} <strong>{s.step === 'token' ? 'Delegation' : s.step === 'directory' ? 'Directory' : 'Gmail'}:</strong> {s.message}
              </p>
            ))}
          </div>
        ) : null}
      </section>

      <DeploymentsTable />

      <Dialog title="Google Workspace settings" open={editing} onClose={() => setEditing(false)}>
        <ConnectForm current={google} onDone={() => setEditing(false)} />
      </Dialog>
      <Dialog title="What a sync would change" open={preview !== null} onClose={() => setPreview(null)} wide>
        {preview ? (
          <>
            <p>
              {preview.created} to create, {preview.updated} to update, {preview.deleted} to delete, {preview.skipped} skipped. Nothing has changed yet.
            </p>
            <ul>
              {preview.changes.slice(0, 100).map((c) => (
                <li key={`${c.action}:${c.email}`}>
                  {c.action}: {c.email}
                  {c.fields?.length ? ` (${c.fields.join(', ')})` : ''}
                  {c.reason ? ` — ${c.reason.replaceAll('_', ' ')}` : ''}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </Dialog>
      <ConfirmDialog
        title="Disconnect Google Workspace?"
        open={disconnecting}
        confirmLabel="Disconnect"
        pending={disconnect.pending}
        onCancel={() => setDisconnecting(false)}
        onConfirm={() => void disconnect.run()}
      >
        <p>The key is deleted and syncs and pushes stop. Users and the signatures already in Gmail stay.</p>
        <ErrorMessage error={disconnect.error} />
      </ConfirmDialog>
    </>
  );
}
