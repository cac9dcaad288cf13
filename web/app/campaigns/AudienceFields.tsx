// Who sees a campaign: every condition of a rule's `when` (docs/api.md, "Rules"): departments,
// roles, SCIM groups, chosen people, custom field values and address domains. Every condition
// given must hold; none is everyone.
import { useState } from 'react';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { boundOf } from '../../shared/api/field-limits.ts';
import type { When } from '../../shared/when.ts';
import { useCustomFields, useGroups, usePeople } from './api.ts';

type Role = NonNullable<When['roles']>[number];
const ROLES: Role[] = ['member', 'admin', 'owner'];

export interface AudienceForm {
  departments: string;
  roles: Role[];
  groups: string[];
  people: { userId: string; label: string }[];
  /** `id`: the row's React key (rows are added and removed anywhere). */
  attributes: { id: number; key: string; value: string }[];
  emailDomains: string;
}

export const emptyAudience: AudienceForm = { departments: '', roles: [], groups: [], people: [], attributes: [], emailDomains: '' };

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The API's `when` for the form: only the conditions given. */
export function toWhen(a: AudienceForm): When {
  const attributes = a.attributes.filter((x) => x.key.trim());
  return {
    ...(list(a.departments).length ? { departments: list(a.departments) } : {}),
    ...(a.roles.length ? { roles: a.roles } : {}),
    ...(a.groups.length ? { groups: a.groups } : {}),
    ...(a.people.length ? { userIds: a.people.map((p) => p.userId) } : {}),
    ...(attributes.length ? { attributes: Object.fromEntries(attributes.map((x) => [x.key.trim(), x.value])) } : {}),
    ...(list(a.emailDomains).length ? { emailDomains: list(a.emailDomains) } : {}),
  };
}

function toggle<T>(items: T[], item: T, on: boolean): T[] {
  return on ? [...items, item] : items.filter((x) => x !== item);
}

function PeoplePicker({ value, onChange }: { value: AudienceForm['people']; onChange: (people: AudienceForm['people']) => void }) {
  const [q, setQ] = useState('');
  const people = usePeople(q.trim());
  const max = boundOf('createCampaign', 'audience.userIds').maxItems;
  return (
    <fieldset className="field">
      <legend>People</legend>
      <div className="grid">
        <TextField label="Find a person to add" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Name or email" />
        <SelectField
          label="Add a person"
          value=""
          disabled={max !== undefined && value.length >= max}
          onChange={(e) => {
            const u = people.data?.items.find((p) => p.userId === e.target.value);
            if (u && !value.some((p) => p.userId === u.userId)) onChange([...value, { userId: u.userId, label: u.name || u.email }]);
          }}
        >
          <option value="">Choose…</option>
          {people.data?.items.map((u) => (
            <option key={u.userId} value={u.userId}>
              {u.name || u.email} ({u.email})
            </option>
          ))}
        </SelectField>
      </div>
      {value.length ? (
        <ul className="campaign-chips" aria-label="Chosen people">
          {value.map((p) => (
            <li key={p.userId}>
              {p.label}{' '}
              <Button className="btn-small btn-ghost" aria-label={`Remove ${p.label}`} onClick={() => onChange(value.filter((x) => x.userId !== p.userId))}>
                ×
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}

function AttributeConditions({ value, onChange }: { value: AudienceForm['attributes']; onChange: (rows: AudienceForm['attributes']) => void }) {
  const fields = useCustomFields();
  const set = (i: number, patch: Partial<AudienceForm['attributes'][number]>) => onChange(value.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const valueMax = boundOf('createCampaign', 'audience.attributes.*').maxLength;
  return (
    <fieldset className="field">
      <legend>Custom fields</legend>
      {value.map((row, i) => (
        <div className="grid" key={row.id}>
          <SelectField label={`Field ${i + 1}`} value={row.key} onChange={(e) => set(i, { key: e.target.value })}>
            <option value="">Choose a field…</option>
            {fields.data?.map((f) => (
              <option key={f.key} value={f.key}>
                {f.label} ({f.key})
              </option>
            ))}
          </SelectField>
          <TextField label={`Field ${i + 1} value`} value={row.value} maxLength={valueMax} onChange={(e) => set(i, { value: e.target.value })} />
          <div className="field campaign-row-action">
            <Button className="btn-small" onClick={() => onChange(value.filter((_, j) => j !== i))} aria-label={`Remove field condition ${i + 1}`}>
              Remove
            </Button>
          </div>
        </div>
      ))}
      {fields.data && fields.data.length === 0 ? <p className="field-hint">The organisation has no custom fields.</p> : null}
      <div className="campaign-add">
        <Button
          className="btn-small"
          disabled={!fields.data?.length}
          onClick={() => onChange([...value, { id: Math.max(0, ...value.map((r) => r.id)) + 1, key: '', value: '' }])}
        >
          Add a field condition
        </Button>
      </div>
    </fieldset>
  );
}

export function AudienceFields({ value, onChange }: { value: AudienceForm; onChange: (a: AudienceForm) => void }) {
  const groups = useGroups();
  const set = (patch: Partial<AudienceForm>) => onChange({ ...value, ...patch });
  return (
    <fieldset className="campaign-group">
      <legend>Audience</legend>
      <p className="field-hint">Every condition given must hold; within one, any entry will do. None: everyone.</p>
      <div className="grid">
        <TextField label="Departments" value={value.departments} onChange={(e) => set({ departments: e.target.value })} hint="Comma-separated" />
        <TextField
          label="Email domains"
          value={value.emailDomains}
          onChange={(e) => set({ emailDomains: e.target.value })}
          hint="Comma-separated, e.g. example.com"
        />
      </div>
      <fieldset className="field">
        <legend>Roles</legend>
        {ROLES.map((r) => (
          <label key={r} className="campaign-check">
            <input type="checkbox" checked={value.roles.includes(r)} onChange={(e) => set({ roles: toggle(value.roles, r, e.target.checked) })} /> {r}
          </label>
        ))}
      </fieldset>
      <fieldset className="field">
        <legend>Groups</legend>
        {groups.data?.items.map((g) => (
          <label key={g.groupId} className="campaign-check">
            <input
              type="checkbox"
              checked={value.groups.includes(g.displayName)}
              onChange={(e) => set({ groups: toggle(value.groups, g.displayName, e.target.checked) })}
            />{' '}
            {g.displayName} ({g.memberCount})
          </label>
        ))}
        {groups.data && groups.data.items.length === 0 ? <p className="field-hint">No groups yet (SCIM provisioning brings them).</p> : null}
      </fieldset>
      <PeoplePicker value={value.people} onChange={(people) => set({ people })} />
      <AttributeConditions value={value.attributes} onChange={(attributes) => set({ attributes })} />
    </fieldset>
  );
}
