import { CopyButton } from '../../shared/components/CopyButton.tsx';

/** Shown when the stage sends no mail (no SMTP_URL): the admin passes the link on themselves. */
export function InvitationLink({ email, url }: { email: string; url: string }) {
  return (
    <div className="alert alert-info" role="status">
      <p>No mail server is configured, so no email was sent. Give {email} this invitation link (it works once, for 7 days):</p>
      <p>
        <code className="break">{url}</code>
      </p>
      <CopyButton label="Copy the link" text={url} />
    </div>
  );
}
