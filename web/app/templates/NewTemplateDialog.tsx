// A new template: a name, and a starter design (the service's starters) or a blank one.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { fieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { notices } from '../../shared/notices.ts';
import { useStarters, useTemplateActions } from './api.ts';

const BLANK = {
  html: '<table cellpadding="0" cellspacing="0" border="0">\n  <tr>\n    <td style="font-family:Arial,sans-serif;font-size:13px;color:#222">\n      <strong>{{ user.name }}</strong><br>\n      {{ user.title }}{% if user.department != blank %}, {{ user.department }}{% endif %}<br>\n      {{ org.name }}\n    </td>\n  </tr>\n</table>',
  text: '{{ user.name }}\n{{ user.title }}\n{{ org.name }}',
};

export function NewTemplateDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (templateId: string) => void }) {
  const actions = useTemplateActions();
  const starters = useStarters();
  const [name, setName] = useState('');
  const [starterId, setStarterId] = useState('');
  const create = useMutation(async () => {
    const starter = starters.data?.find((s) => s.starterId === starterId);
    const source = starter ? { html: starter.html, text: starter.text } : BLANK;
    const created = await actions.create({ name: name.trim(), ...source });
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
        <TextField label="Name" value={name} maxLength={maxLengthOf('createTemplate', 'name')} required onChange={(e) => setName(e.target.value)} error={nameError} autoFocus />
        <SelectField label="Start from" value={starterId} onChange={(e) => setStarterId(e.target.value)} hint="A starter design to adapt, or a blank template.">
          <option value="">Blank template</option>
          {(starters.data ?? []).map((s) => (
            <option key={s.starterId} value={s.starterId}>
              {s.name}
            </option>
          ))}
        </SelectField>
        {create.error && !nameError ? <ErrorMessage error={create.error} /> : null}
      </form>
    </Dialog>
  );
}
