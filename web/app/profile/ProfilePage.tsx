// A person's own profile (name, title, phone, mobile, department), with their signature previewed
// as they type. Saving answers 409 when the profile changed elsewhere: the page says so and offers
// to load the current version.
import { useEffect, useState, type FormEvent } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { ApiError, fieldError as fieldErrorOf } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { useLimits } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import type { User } from '../../shared/api/types.ts';
import { renderPreview, type PreviewFields } from './live-preview.ts';
import { useDefaultTemplate, useMe, useMyOrg, useProfileActions } from './api.ts';

const FIELDS = [
  { key: 'name', label: 'Name', autoComplete: 'name' },
  { key: 'title', label: 'Job title', autoComplete: 'organization-title' },
  { key: 'department', label: 'Department', autoComplete: 'off' },
  { key: 'phone', label: 'Phone', autoComplete: 'tel' },
  { key: 'mobile', label: 'Mobile', autoComplete: 'tel' },
] as const;
type Key = (typeof FIELDS)[number]['key'];
type Form = Record<Key, string>;

const formOf = (u: User): Form => ({ name: u.name, title: u.title, department: u.department, phone: u.phone, mobile: u.mobile });

export default function ProfilePage() {
  const user = useMe();
  return (
    <section className="page">
      <PageHeader title="My profile">What your signature says about you. Your email address and role are managed by an administrator.</PageHeader>
      {user.loading && !user.data ? <Loading /> : null}
      <ErrorMessage error={user.error} />
      {user.data ? <ProfileForm user={user.data} key={user.data.version} /> : null}
    </section>
  );
}

function ProfileForm({ user }: { user: User }) {
  const actions = useProfileActions();
  const [form, setForm] = useState<Form>(() => formOf(user));
  const save = useMutation(async (values: Form) => {
    const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== user[k as Key]));
    const saved = await actions.save(user, changed);
    notices.show({ kind: 'success', text: 'Profile saved.' });
    return saved;
  });
  const conflict = save.error instanceof ApiError && save.error.status === 409;
  const fieldError = (k: Key) => fieldErrorOf(save.error, k);
  const dirty = FIELDS.some((f) => form[f.key] !== user[f.key]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(form);
  };
  return (
    <div className="two-col">
      <form className="card" onSubmit={onSubmit} aria-label="Profile">
        <TextField label="Email" value={user.email} readOnly hint="Ask an administrator to change it." />
        {FIELDS.map((f) => (
          <TextField
            key={f.key}
            label={f.label}
            name={f.key}
            autoComplete={f.autoComplete}
            maxLength={maxLengthOf('updateUser', f.key)}
            value={form[f.key]}
            error={fieldError(f.key)}
            onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}
          />
        ))}
        {conflict ? (
          <ErrorMessage error={save.error}>
            <p>
              Your profile was changed somewhere else while you edited it.{' '}
              <Button className="btn-small" onClick={() => void actions.reload(user)}>
                Load the current version
              </Button>
            </p>
          </ErrorMessage>
        ) : save.error && !FIELDS.some((f) => fieldError(f.key)) ? (
          <ErrorMessage error={save.error} />
        ) : null}
        <div className="form-actions">
          <Button onClick={() => setForm(formOf(user))} disabled={!dirty || save.pending}>
            Discard changes
          </Button>
          <Button type="submit" variant="primary" disabled={!dirty || save.pending}>
            {save.pending ? 'Saving…' : 'Save profile'}
          </Button>
        </div>
      </form>
      <LivePreview fields={{ ...form, email: user.email }} />
    </div>
  );
}

/** The org's default template, rendered with the form's values as they are typed. */
function LivePreview({ fields }: { fields: PreviewFields }) {
  const limits = useLimits();
  const org = useMyOrg();
  const templates = useDefaultTemplate();
  const template = templates.template;
  const [html, setHtml] = useState<string>();
  const [error, setError] = useState<string>();
  const key = JSON.stringify(fields);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the fields' content (key), the template's HTML or the org's name change, not on every new object
  useEffect(() => {
    if (!template || !org.data) return;
    let live = true;
    const timer = setTimeout(() => {
      renderPreview(template.html, fields, org.data!.name, limits.templateSourceChars).then(
        (out) => {
          if (!live) return;
          setHtml(out);
          setError(undefined);
        },
        (err: unknown) => live && setError(err instanceof Error ? err.message : 'The template could not be previewed.'),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, template?.html, org.data?.name]);
  return (
    <div className="card" aria-live="polite">
      <h2>Preview</h2>
      {templates.data && !template ? <p className="muted">Your organisation has no default template yet.</p> : null}
      <ErrorMessage error={templates.error} />
      {error ? <p className="field-error">{error}</p> : null}
      {html !== undefined ? <SignatureFrame html={html} title="Signature preview" /> : template ? <Loading label="Preparing the preview…" /> : null}
      <p className="muted small">Updates as you type; “My signature” shows the saved version.</p>
    </div>
  );
}
