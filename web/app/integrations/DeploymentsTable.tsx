// Where each user's signature stands in Gmail: state, the reason of a skip, Google's answer when it
// failed; filtered by state, paged.
import { useState } from 'react';
import { SelectField } from '../../shared/components/Field.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';

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
  const { api, orgId } = useOrg();
  const pager = usePager();
  const [state, setState] = useState<State | ''>('');
  const list = useQuery(['google', orgId, 'deployments', state, pager.cursor ?? ''], () =>
    call(
      api.GET('/v1/orgs/{orgId}/deployments', {
        params: { path: { orgId }, query: { target: 'gmail', limit: 50, ...(state ? { state } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } },
      }),
    ),
  );
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
      {list.loading && !list.data ? <Loading /> : null}
      <ErrorMessage error={list.error} />
      {list.data && list.data.items.length === 0 ? <Empty>No signatures pushed yet{state ? ` in this state` : ''}.</Empty> : null}
      {list.data && list.data.items.length > 0 ? (
        <div className="table-wrap">
          <table aria-label="Signatures in Gmail">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">State</th>
                <th scope="col">Why</th>
                <th scope="col">In Gmail since</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((d) => (
                <tr key={`${d.userId}:${d.target}`}>
                  <td>{d.email}</td>
                  <td>
                    <span className={PILL[d.state]}>{d.state}</span>
                  </td>
                  <td>{d.error ?? (d.reason ? (REASONS[d.reason] ?? d.reason) : '')}</td>
                  <td>{when(d.deployedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pager={pager} nextCursor={list.data?.nextCursor} />
    </section>
  );
}
