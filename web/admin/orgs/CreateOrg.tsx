// Creating an organisation and its owner, as `sigsvc org create` does, without stopping the
// service: the owner is invited by mail, and the org's first API key is shown once.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { fieldError as fieldErrorOf, isFieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { useOrgActions, type NewOrg } from './api.ts';

const FIELDS = ['body.name', 'body.seats', 'body.plan', 'body.ownerEmail', 'body.ownerName'];

interface Created {
  orgId: string;
  ownerUserId: string;
  apiKey: { keyId: string; key: string };
  ownerInvitationUrl?: string;
  name: string;
  ownerEmail: string;
}

export default function CreateOrg() {
  const actions = useOrgActions();
  const [form, setForm] = useState({ name: '', seats: '5', plan: 'trial', ownerEmail: '', ownerName: '' });
  const [created, setCreated] = useState<Created | undefined>();
  const create = useMutation(async () => {
    const body: NewOrg = {
      name: form.name.trim(),
      seats: Number(form.seats),
      plan: form.plan.trim() || 'trial',
      ownerEmail: form.ownerEmail.trim(),
      ...(form.ownerName.trim() ? { ownerName: form.ownerName.trim() } : {}),
    };
    const result = await actions.create(body);
    return { ...result, name: body.name, ownerEmail: body.ownerEmail };
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create.run();
    if (result) {
      setCreated(result);
      notices.show({ kind: 'success', text: `${result.name} was created.` });
    }
  };
  const fieldError = (name: string) => fieldErrorOf(create.error, `body.${name}`);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));

  if (created) {
    return (
      <section className="page">
        <PageHeader title="Organisation created">{created.name}</PageHeader>
        <div className="card">
          {created.ownerInvitationUrl ? (
            <>
              <p>
                No mail is configured on this service: give the owner, <strong>{created.ownerEmail}</strong>, this invitation link. It works once.
              </p>
              <section aria-label="Invitation link">
                <pre className="code">{created.ownerInvitationUrl}</pre>
              </section>
              <CopyButton label="Copy the link" text={created.ownerInvitationUrl} />
            </>
          ) : (
            <p>
              The owner, <strong>{created.ownerEmail}</strong>, is invited: the invitation mail lets them choose a password.
            </p>
          )}
          <h2>First API key</h2>
          <p className="muted">Shown this once. Give it to the organisation’s administrators, or let them make their own.</p>
          <section aria-label="API key">
            <pre className="code">{created.apiKey.key}</pre>
          </section>
          <div className="form-actions" style={{ justifyContent: 'flex-start' }}>
            <CopyButton label="Copy the key" text={created.apiKey.key} />
            <Link className="btn btn-primary" to={`/orgs/${created.orgId}`}>
              Open the organisation
            </Link>
          </div>
        </div>
      </section>
    );
  }

  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/orgs">Organisations</Link>
      </p>
      <PageHeader title="Create an organisation">A new organisation starts trialing. Its owner is invited by mail.</PageHeader>
      <form className="card narrow" onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Name" required value={form.name} onChange={set('name')} error={fieldError('name')} autoFocus />
        <TextField label="Seats" type="number" min={0} step={1} required value={form.seats} onChange={set('seats')} error={fieldError('seats')} />
        <TextField
          label="Plan"
          required
          value={form.plan}
          onChange={set('plan')}
          error={fieldError('plan')}
          hint="Billing events set it from the price later."
        />
        <TextField label="Owner’s email" type="email" required value={form.ownerEmail} onChange={set('ownerEmail')} error={fieldError('ownerEmail')} />
        <TextField label="Owner’s name" value={form.ownerName} onChange={set('ownerName')} error={fieldError('ownerName')} />
        {create.error && !isFieldError(create.error, FIELDS) ? <ErrorMessage error={create.error} /> : null}
        <div className="form-actions">
          <Link className="btn" to="/orgs">
            Cancel
          </Link>
          <Button type="submit" variant="primary" disabled={create.pending}>
            {create.pending ? 'Creating…' : 'Create'}
          </Button>
        </div>
      </form>
    </section>
  );
}
