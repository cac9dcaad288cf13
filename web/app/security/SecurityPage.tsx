// One's own sign-in security: the password, and two-step verification (enrol with a QR code for
// the authenticator app or the secret typed by hand, confirm with a first code, or turn it off).
import { useEffect, useState, type FormEvent } from 'react';
import QRCode from 'qrcode';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { PasswordCard } from './PasswordCard.tsx';
import { useMe, useSecurityActions } from './api.ts';

export default function SecurityPage() {
  const user = useMe();
  return (
    <section className="page">
      <PageHeader title="Security">How you sign in: your password, and a second step that keeps a stolen password from being enough.</PageHeader>
      <PasswordCard />
      <h2 id="mfa-title">Two-step verification</h2>
      <p className="muted">
        After your password, signing in asks for a code from an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, …).
      </p>
      {user.loading && !user.data ? <Loading /> : null}
      <ErrorMessage error={user.error} />
      {user.data ? user.data.mfaEnabled ? <Enabled /> : <Enrol /> : null}
    </section>
  );
}

function Enabled() {
  const actions = useSecurityActions();
  const [confirming, setConfirming] = useState(false);
  const disable = useMutation(async () => {
    await actions.disableTotp();
    setConfirming(false);
    notices.show({ kind: 'success', text: 'Two-step verification is off.' });
  });
  return (
    <div className="card">
      <p>
        <span className="pill pill-success">On</span> Signing in asks for a code from your authenticator app.
      </p>
      <ErrorMessage error={disable.error} />
      <Button variant="danger" onClick={() => setConfirming(true)}>
        Turn off two-step verification
      </Button>
      <ConfirmDialog
        title="Turn off two-step verification?"
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void disable.run()}
        confirmLabel="Turn off"
        pending={disable.pending}
      >
        <p>Your password alone will then be enough to sign in.</p>
      </ConfirmDialog>
    </div>
  );
}

function Enrol() {
  const actions = useSecurityActions();
  const [secret, setSecret] = useState<{ secret: string; otpauthUri: string }>();
  const [qr, setQr] = useState<string>();
  const [code, setCode] = useState('');
  const start = useMutation(async () => {
    setSecret(await actions.startTotp());
  });
  const confirm = useMutation(async (c: string) => {
    await actions.confirmTotp(c);
    notices.show({ kind: 'success', text: 'Two-step verification is on.' });
  });
  useEffect(() => {
    if (!secret) return;
    void QRCode.toDataURL(secret.otpauthUri, { margin: 1, width: 220 }).then(setQr);
  }, [secret]);

  if (!secret) {
    return (
      <div className="card">
        <p>
          <span className="pill">Off</span> Only your password protects your account.
        </p>
        <ErrorMessage error={start.error} />
        <Button variant="primary" onClick={() => void start.run()} disabled={start.pending}>
          Set up two-step verification
        </Button>
      </div>
    );
  }
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void confirm.run(code.trim());
  };
  return (
    <div className="card">
      <h3>1. Scan this code with your authenticator app</h3>
      {qr ? <img src={qr} width={220} height={220} alt="QR code to add this account to an authenticator app" /> : <Loading label="Drawing the code…" />}
      <p className="muted">
        Cannot scan it? Enter this key in the app instead:{' '}
        <output aria-label="Secret key">
          <code>{secret.secret}</code>
        </output>
      </p>
      <h3>2. Enter the 6-digit code the app shows</h3>
      <form onSubmit={onSubmit} aria-label="Confirm two-step verification">
        <TextField
          label="Code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <ErrorMessage error={confirm.error} />
        <div className="form-actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="submit" variant="primary" disabled={confirm.pending}>
            Turn on
          </Button>
          <Button onClick={() => setSecret(undefined)}>Cancel</Button>
        </div>
      </form>
    </div>
  );
}
