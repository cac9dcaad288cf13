// One user's signature, opened from the Users page: rendered as mail clients show it, copied as
// formatted HTML, as HTML source or as plain text, with the steps to paste it into each client.
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { PasteHelp } from '../../shared/components/PasteHelp.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import type { User } from '../../shared/api/types.ts';
import { useUserSignature } from './api.ts';

export function SignatureDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const signature = useUserSignature(user.userId);
  const who = user.name || user.email;
  const data = signature.data;
  return (
    <Dialog title={`Signature of ${who}`} open onClose={onClose} wide footer={<Button onClick={onClose}>Close</Button>}>
      {signature.loading && !data ? <Loading label="Rendering the signature…" /> : null}
      <ErrorMessage error={signature.error} />
      {data ? (
        <>
          <SignatureFrame html={data.html} title={`Signature of ${who}`} />
          <div className="form-actions copy-actions">
            <CopyButton label="Copy signature" variant="primary" html={data.html} text={data.text} />
            <CopyButton label="Copy HTML" text={data.html} />
            <CopyButton label="Copy plain text" text={data.text} />
          </div>
          {data.warnings.length > 0 ? (
            <ul className="alert alert-warning" aria-label="Warnings">
              {data.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : null}
          <PasteHelp card={false} />
        </>
      ) : null}
    </Dialog>
  );
}
