// SCIM provisioning: generate the token (shown once), the base URL to give Okta or Entra ID, the
// last request, and the steps for each (docs/scim.md says the same at length).
import { useState } from 'react';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { useScimActions, useScimIntegration } from './api.ts';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');

export function ScimCard() {
  const scim = useScimIntegration();
  const actions = useScimActions();
  const [token, setToken] = useState<string | null>(null);
  const [revoking, setRevoking] = useState(false);
  const generate = useMutation(async () => setToken((await actions.generate()).token));
  const revoke = useMutation(async () => {
    await actions.revoke();
    setToken(null);
    setRevoking(false);
    notices.show({ kind: 'success', text: 'SCIM token revoked: provisioning is off.' });
  });
  const state = scim.data;
  return (
    <section className="card" aria-labelledby="scim-title">
      <h2 id="scim-title">SCIM provisioning (Okta, Entra ID)</h2>
      {scim.loading && !state ? <Loading /> : null}
      <ErrorMessage error={scim.error} />
      {state ? (
        <>
          <p>
            Your identity provider creates, updates, suspends and removes users, and keeps groups, through SCIM 2.0. While it is on, a directory sync leaves the
            users SCIM created alone.
          </p>
          <dl className="grid">
            <div className="stat">
              <dt>Status</dt>
              <dd className="small">{state.enabled ? `On since ${when(state.createdAt)}` : 'Off'}</dd>
            </div>
            <div className="stat">
              <dt>Last request</dt>
              <dd className="small">{state.enabled ? when(state.lastRequestAt) : '—'}</dd>
            </div>
          </dl>
          <p>
            Base URL: <code>{state.baseUrl}</code> <CopyButton label="Copy base URL" text={state.baseUrl} />
          </p>
          {token ? (
            <div className="alert alert-info" role="status" aria-label="New SCIM token">
              <p>
                <strong>Copy this token now: it is not shown again.</strong>
              </p>
              <pre className="mono">{token}</pre>
              <CopyButton label="Copy token" text={token} />
            </div>
          ) : null}
          <div className="form-actions">
            <Button variant="primary" onClick={() => void generate.run()} disabled={generate.pending}>
              {state.enabled ? 'Replace token' : 'Generate token'}
            </Button>
            {state.enabled ? (
              <Button variant="danger" onClick={() => setRevoking(true)}>
                Revoke
              </Button>
            ) : null}
          </div>
          <ErrorMessage error={generate.error} />
          <details>
            <summary>Steps for Okta</summary>
            <ol>
              <li>In your Okta app integration, choose SCIM as the provisioning method.</li>
              <li>On Provisioning → Integration, paste the base URL, set the unique identifier to userName, and choose HTTP Header with the token above.</li>
              <li>Test the connector, then under To App enable Create Users, Update User Attributes and Deactivate Users.</li>
              <li>Assign people (and push groups by name).</li>
            </ol>
          </details>
          <details>
            <summary>Steps for Microsoft Entra ID</summary>
            <ol>
              <li>Create an enterprise application of your own (not from the gallery).</li>
              <li>Under Provisioning, choose Automatic; Tenant URL is the base URL, Secret Token the token above. Test the connection and save.</li>
              <li>Assign users and groups, then set the provisioning status to On. Entra provisions about every 40 minutes.</li>
            </ol>
          </details>
        </>
      ) : null}
      <ConfirmDialog
        title="Revoke the SCIM token?"
        open={revoking}
        confirmLabel="Revoke"
        pending={revoke.pending}
        onCancel={() => setRevoking(false)}
        onConfirm={() => void revoke.run()}
      >
        <p>Your identity provider's requests are refused from now on. Users and groups it made stay.</p>
        <ErrorMessage error={revoke.error} />
      </ConfirmDialog>
    </section>
  );
}
