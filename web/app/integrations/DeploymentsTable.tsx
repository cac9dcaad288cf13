// Where each user's signature stands in Gmail: state, the reason of a skip, Google's answer when it
// failed; filtered by state, paged.
import { useState } from 'react';
import { SelectField } from '../../shared/components/Field.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { useGmailDeployments } from './api.ts';

const STATES = ['pending', 'deployed', 'failed', 'skipped'] as const;
type State = (typeof STATES)[number];
const REASONS: Record<string, string> = {
  unchanged: 'unchanged since the last push',
  payment_required: 'the subscription is unpaid',
  too_long: "longer than Gmail's 10,000 characters",
  not_in_directory: 'not a user of the Workspace',
};
const PILL: Record<State, string> = { deployed: 'pill pill-success', failed: 'pill pill-warning', skipped: 'pill', pending: 'pill' };
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');

export function DeploymentsTable() {
  const pager = usePager();
  const [state, setState] = useState<State | ''>('');
  const list = useGmailDeployments(state, pager.cursor);
  return (
    <section aria-labelledby="deployments-title">
      <h2 id="deployments-title">Signatures in Gmail</h2>
      <div className="toolbar">
        <SelectField
          label="State"
          value={state}
          onChange={(e) => {
            setState(e.target.value as State | '');
            pager.reset();
          }}
        >
          <option value="">All</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s[0]!.toUpperCase() + s.slice(1)}
            </option>
          ))}
        </SelectField>
      </div>
      <ListTable
        items={list.data?.items}
        loading={list.loading}
        error={list.error}
        label="Signatures in Gmail"
        empty={`No signatures pushed yet${state ? ' in this state' : ''}.`}
        columns={['User', 'State', 'Why', 'In Gmail since']}
        row={(d) => (
          <tr key={`${d.userId}:${d.target}`}>
            <td>{d.email}</td>
            <td>
              <span className={PILL[d.state]}>{d.state}</span>
            </td>
            <td>{d.error ?? (d.reason ? (REASONS[d.reason] ?? d.reason) : '')}</td>
            <td>{when(d.deployedAt)}</td>
          </tr>
        )}
      />
      <Pager pager={pager} nextCursor={list.data?.nextCursor} />
    </section>
  );
}
