// A new template: a name, and a starter from the gallery (each with its picture, drawn by the
// service) to open in the designer, or a blank one for the HTML code editor.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { fieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { notices } from '../../shared/notices.ts';
import { useDesignActions, useStarters, useTemplateActions, type DesignStarter } from './api.ts';
import './designer.css';

const BLANK = {
  html: '<table cellpadding="0" cellspacing="0" border="0">\n  <tr>\n    <td style="font-family:Arial,sans-serif;font-size:13px;color:#222">\n      <strong>{{ user.name }}</strong><br>\n      {{ user.title }}{% if user.department != blank %}, {{ user.department }}{% endif %}<br>\n      {{ org.name }}\n    </td>\n  </tr>\n</table>',
  text: '{{ user.name }}\n{{ user.title }}\n{{ org.name }}',
};

export function NewTemplateDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (templateId: string) => void }) {
  const actions = useTemplateActions();
  const designs = useDesignActions();
  const starters = useStarters();
  const [name, setName] = useState('');
  const [starterId, setStarterId] = useState('');
  const create = useMutation(async () => {
    const starter = (starters.data as DesignStarter[] | undefined)?.find((s) => s.starterId === starterId);
    const created = starter?.design
      ? await designs.createFromStarter(name.trim(), starter.design)
      : await actions.create({ name: name.trim(), ...(starter ? { html: starter.html, text: starter.text } : BLANK) });
    notices.show({ kind: 'success', text: `Template “${created.name}” created.` });
    return created;
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const created = await create.run();
    if (created) {
      setName('');
      onClose();
      onCreated(created.templateId);
    }
  };
  const nameError = fieldError(create.error, 'body.name');
  return (
    <Dialog
      wide
      title="New template"
      open={open}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="new-template" disabled={create.pending || !name.trim()}>
            {create.pending ? 'Creating…' : 'Create and edit'}
          </Button>
        </>
      }
    >
      <form id="new-template" onSubmit={(e) => void submit(e)}>
        <TextField
          label="Name"
          value={name}
          maxLength={maxLengthOf('createTemplate', 'name')}
          required
          onChange={(e) => setName(e.target.value)}
          error={nameError}
          autoFocus
        />
        <fieldset className="starters">
          <legend>Start from</legend>
          <ul className="starter-gallery">
            <li>
              <button type="button" className="starter-card" aria-pressed={starterId === ''} onClick={() => setStarterId('')}>
                <span className="starter-card__blank" aria-hidden="true">
                  &lt;/&gt;
                </span>
                <strong>Blank (HTML)</strong>
                <span className="muted small">Write the HTML yourself in the code editor.</span>
              </button>
            </li>
            {((starters.data ?? []) as DesignStarter[]).map((s) => (
              <li key={s.starterId}>
                <button type="button" className="starter-card" aria-pressed={starterId === s.starterId} onClick={() => setStarterId(s.starterId)}>
                  {s.thumbnailUrl ? (
                    <img src={s.thumbnailUrl} alt="" width={480} height={240} loading="lazy" />
                  ) : (
                    <span className="starter-card__blank" aria-hidden="true" />
                  )}
                  <strong>{s.name}</strong>
                  {s.description ? <span className="muted small">{s.description}</span> : null}
                </button>
              </li>
            ))}
          </ul>
        </fieldset>
        {create.error && !nameError ? <ErrorMessage error={create.error} /> : null}
      </form>
    </Dialog>
  );
}
