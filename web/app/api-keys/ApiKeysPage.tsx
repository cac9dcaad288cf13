// API keys: the list (prefix, created, last used, revoked), minting one (the secret is shown once,
// with a copy button and a warning), revoking with a confirmation, and the rotation docs/guide.md
// recommends ("Credentials"), explained where it is done.
import { useState, type FormEvent } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog, Dialog } from '../../shared/components/Dialog.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { fieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { notices } from '../../shared/notices.ts';
import type { Schemas } from '../../shared/api/types.ts';
import { useApiKeyActions, useApiKeys } from './api.ts';

type ApiKey = Schemas['ApiKey'];
type Minted = Schemas['MintedApiKey'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : null);

export default function ApiKeysPage() {
  const pager = usePager();
  const keys = useApiKeys(pager.cursor);
  const actions = useApiKeyActions();
  const [minting, setMinting] = useState(false);
  const [minted, setMinted] = useState<Minted | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation(async (key: ApiKey) => {
    await actions.revoke(key.keyId);
    setRevoking(null);
    notices.show({ kind: 'success', text: `Key “${key.name}” revoked: it no longer works.` });
  });

  return (
    <section className="page">
      <PageHeader
        title="API keys"
        actions={
          <Button variant="primary" onClick={() => setMinting(true)}>
            New API key
          </Button>
        }
      >
        Keys let your own systems call the Signature Service API with the admin role. Keep them secret: anyone holding one can read and change your
        organisation's users and templates.
      </PageHeader>

      <details className="card rotation">
        <summary>How to rotate a key (recommended at least every quarter)</summary>
        <ol>
          <li>Create a new key here and copy it.</li>
          <li>Roll it out: replace the old key wherever your systems use it.</li>
          <li>
            Confirm the new key is in use: its <strong>Last used</strong> date below fills in, and the old key's stops moving.
          </li>
          <li>Revoke the old key. Revocation takes effect at once, and works even when the organisation's plan blocks other changes.</li>
        </ol>
      </details>

      <ListTable
        items={keys.data?.items}
        loading={keys.loading}
        error={keys.error}
        label="API keys"
        empty={pager.page === 1 ? 'No API keys yet.' : undefined}
        columns={['Name', 'Key starts with', 'Created', 'Last used', 'Status', 'Actions']}
        row={(k) => (
          <tr key={k.keyId}>
            <td>{k.name}</td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>{when(k.createdAt)}</td>
            <td>{when(k.lastUsedAt) ?? <span className="muted">Never</span>}</td>
            <td>{k.revokedAt ? <span className="pill">Revoked {when(k.revokedAt)}</span> : <span className="pill pill-success">Active</span>}</td>
            <td className="cell-actions">
              {k.revokedAt ? null : (
                <Button variant="danger" className="btn-small" onClick={() => setRevoking(k)} aria-label={`Revoke key ${k.name}`}>
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        )}
      />
      <Pager pager={pager} nextCursor={keys.data?.nextCursor} />

      <MintDialog
        open={minting}
        onClose={() => setMinting(false)}
        onMinted={(key) => {
          setMinting(false);
          setMinted(key);
        }}
      />
      <Dialog
        title="Your new API key"
        open={minted !== null}
        onClose={() => setMinted(null)}
        footer={
          <Button variant="primary" onClick={() => setMinted(null)}>
            I have stored the key
          </Button>
        }
      >
        {minted ? (
          <>
            <div className="alert alert-warning" role="alert">
              <p>
                <strong>Copy this key now: it is shown only once.</strong> The service keeps only a hash of it, so nobody can show it to you again. If you lose
                it, revoke it and create another.
              </p>
            </div>
            <TextField label={`Key “${minted.name}”`} value={minted.key} readOnly onFocus={(e) => e.currentTarget.select()} className="mono" />
            <CopyButton label="Copy key" text={minted.key} variant="primary" />
          </>
        ) : null}
      </Dialog>
      <ConfirmDialog
        title="Revoke this key?"
        open={revoking !== null}
        confirmLabel="Revoke key"
        pending={revoke.pending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && void revoke.run(revoking)}
      >
        <p>
          Every system using “{revoking?.name}” (<code>{revoking?.prefix}…</code>) is refused from now on. This cannot be undone.
        </p>
        <ErrorMessage error={revoke.error} />
      </ConfirmDialog>
    </section>
  );
}

function MintDialog({ open, onClose, onMinted }: { open: boolean; onClose: () => void; onMinted: (key: Minted) => void }) {
  const actions = useApiKeyActions();
  const [name, setName] = useState('');
  const mint = useMutation(() => actions.mint(name.trim()));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const key = await mint.run();
    if (key) {
      setName('');
      onMinted(key);
    }
  };
  const nameError = fieldError(mint.error, 'body.name');
  return (
    <Dialog
      title="New API key"
      open={open}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="mint-key" disabled={mint.pending || !name.trim()}>
            {mint.pending ? 'Creating…' : 'Create key'}
          </Button>
        </>
      }
    >
      <form id="mint-key" onSubmit={(e) => void submit(e)}>
        <TextField
          label="Name"
          hint="Where the key is used, e.g. “HR system sync”."
          value={name}
          maxLength={maxLengthOf('createApiKey', 'name')}
          required
          autoFocus
          onChange={(e) => setName(e.target.value)}
          error={nameError}
        />
        {mint.error && !nameError ? <ErrorMessage error={mint.error} /> : null}
      </form>
    </Dialog>
  );
}
