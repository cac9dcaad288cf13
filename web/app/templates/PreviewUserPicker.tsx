// Whom the preview renders as: any user of the org, found by name or email (the users search).
import { useState } from 'react';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { usePreviewUsers } from './api.ts';

export function PreviewUserPicker({ value, onChange }: { value: string | undefined; onChange: (userId: string) => void }) {
  const [q, setQ] = useState('');
  const users = usePreviewUsers(q);
  const items = users.data?.items ?? [];
  return (
    <div className="preview-user">
      <TextField label="Find a person" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Name or email" />
      <SelectField label="Preview as" value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        {value && !items.some((u) => u.userId === value) ? <option value={value}>(current choice)</option> : null}
        {items.map((u) => (
          <option key={u.userId} value={u.userId}>
            {u.name ? `${u.name} — ${u.email}` : u.email}
          </option>
        ))}
      </SelectField>
    </div>
  );
}
