// Inviting a staff member: they get a mail to choose a password, and enrol TOTP at first sign-in.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { ApiError, fieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import type { StaffMember } from '../lib/types.ts';

export function InviteDialog({
  open,
  onClose,
  invite,
}: {
  open: boolean;
  onClose: () => void;
  invite: (body: { email: string; name: string }) => Promise<StaffMember & { invitationUrl?: string }>;
}) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  /** The link to hand over, when the service sends no mail. */
  const [link, setLink] = useState<string | undefined>();
  const run = useMutation(invite);
  const close = () => {
    setEmail('');
    setName('');
    setLink(undefined);
    run.reset();
    onClose();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const member = await run.run({ email: email.trim(), name: name.trim() });
    if (!member) return;
    notices.show({ kind: 'success', text: `${member.email} is invited.` });
    if (member.invitationUrl) setLink(member.invitationUrl);
    else close();
  };
  if (link) {
    return (
      <Dialog title="Invite staff" open={open} onClose={close} footer={<Button onClick={close}>Done</Button>}>
        <p>No mail is configured on this service: give {email} this invitation link. It works once.</p>
        <section aria-label="Invitation link">
          <pre className="code">{link}</pre>
        </section>
        <CopyButton label="Copy the link" text={link} />
      </Dialog>
    );
  }
  // An address already taken (409) is about the email too.
  const emailError = fieldError(run.error, 'body.email') ?? (run.error instanceof ApiError && run.error.status === 409 ? run.error.message : undefined);
  return (
    <Dialog title="Invite staff" open={open} onClose={close}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={emailError} autoFocus />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} />
        {run.error && !emailError ? <ErrorMessage error={run.error} /> : null}
        <div className="form-actions">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={run.pending}>
            {run.pending ? 'Inviting…' : 'Send invitation'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
