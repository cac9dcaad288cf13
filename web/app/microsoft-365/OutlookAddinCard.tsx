// The Outlook add-in: its manifest (downloaded through the API with the signed-in token), the
// Microsoft 365 admin center steps, the key's rotation, and per user when the add-in last fetched.
import { useState } from 'react';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { useMicrosoftActions, useOutlook, useOutlookDeployments, when } from './api.ts';

export function OutlookAddinCard() {
  const actions = useMicrosoftActions();
  const outlook = useOutlook();
  const [rotating, setRotating] = useState(false);
  const download = useMutation(async () => {
    const xml = await actions.manifest();
    const url = URL.createObjectURL(new Blob([xml], { type: 'application/xml' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'signature-addin-manifest.xml';
    a.click();
    URL.revokeObjectURL(url);
  });
  const rotate = useMutation(async () => {
    await actions.rotateAddinKey();
    setRotating(false);
    notices.show({ kind: 'success', text: 'New add-in key made. Download the manifest again and update the add-in in the Microsoft 365 admin center.' });
  });

  return (
    <div className="card ms-card">
      <h2>Outlook add-in</h2>
      {outlook.loading && !outlook.data ? <Loading /> : null}
      <ErrorMessage error={outlook.error} />
      {outlook.data ? (
        <>
          {outlook.data.addinKey === null ? (
            <p>Not set up yet: downloading the manifest makes the add-in's key, which the manifest carries.</p>
          ) : (
            <p>
              Last fetched a signature: <strong>{when(outlook.data.lastFetchAt)}</strong>
            </p>
          )}
          <div className="page-actions">
            <Button variant="primary" onClick={() => void download.run()} disabled={download.pending}>
              {download.pending ? 'Preparing…' : 'Download the manifest'}
            </Button>
            {outlook.data.addinKey === null ? null : <Button onClick={() => setRotating(true)}>Replace the add-in key</Button>}
          </div>
          <ErrorMessage error={download.error} />
          <h3>Deploy it for everyone (once)</h3>
          <ol>
            <li>Download the manifest above.</li>
            <li>
              Sign in to the Microsoft 365 admin center (admin.microsoft.com) as a Global or Exchange administrator, and open{' '}
              <strong>Settings → Integrated apps</strong>.
            </li>
            <li>
              Choose <strong>Upload custom apps</strong>, then <strong>Office Add-in</strong>, and upload the manifest file.
            </li>
            <li>Assign it to the entire organization (or to the groups who should get signatures), accept the permissions, and finish.</li>
            <li>
              Outlook picks it up within a few hours (up to a day). Your users do nothing: their signature appears when they write a message, a reply or a
              meeting.
            </li>
          </ol>
          <p className="muted">
            Outlook must reach this service over HTTPS. After replacing the key, upload the new manifest the same way (Integrated apps → the add-in → Update):
            until then Outlook inserts nothing.
          </p>
          <FetchesTable />
        </>
      ) : null}
      <ConfirmDialog
        title="Replace the add-in key?"
        open={rotating}
        confirmLabel="Replace key"
        pending={rotate.pending}
        onCancel={() => setRotating(false)}
        onConfirm={() => void rotate.run()}
      >
        <p>The add-in deployed now stops inserting signatures until you upload the new manifest in the Microsoft 365 admin center.</p>
        <ErrorMessage error={rotate.error} />
      </ConfirmDialog>
    </div>
  );
}

function FetchesTable() {
  const pager = usePager();
  const rows = useOutlookDeployments(pager.cursor);
  return (
    <>
      <h3>When the add-in last fetched each signature</h3>
      <ListTable
        items={rows.data?.items}
        loading={rows.loading}
        error={rows.error}
        label="Outlook fetches"
        empty={pager.page === 1 ? 'No signature fetched by Outlook yet.' : undefined}
        columns={['User', 'State', 'Last fetched']}
        row={(d) => (
          <tr key={d.userId}>
            <td>{d.email}</td>
            <td>
              {d.state === 'deployed' ? (
                <span className="pill pill-success">Inserted</span>
              ) : (
                <span className="pill">
                  Not inserted: {d.reason === 'too_long' ? 'too long for Outlook' : d.reason === 'payment_required' ? 'subscription lapsed' : d.reason}
                </span>
              )}
            </td>
            <td>{when(d.deployedAt)}</td>
          </tr>
        )}
      />
      <Pager pager={pager} nextCursor={rows.data?.nextCursor} />
    </>
  );
}
