// One card of an org's page: a heading, a paged read-only table, and what the list says when it is
// loading, failed or empty. The users, payment events and audit cards differ only in their columns.
import type { ReactNode } from 'react';
import { usePager, Pager } from '../../shared/components/Pager.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';

interface PageQuery<T> {
  data: { items: T[]; nextCursor: string | null } | undefined;
  error: unknown;
  loading: boolean;
}

export function PagedCard<T>(props: {
  id: string;
  title: string;
  intro?: ReactNode;
  empty: string;
  columns: string[];
  orgId: string;
  /** The hook answering the org's list for a page cursor (undefined: the first page). */
  useList: (orgId: string, cursor: string | undefined) => PageQuery<T>;
  row: (item: T, index: number) => ReactNode;
}) {
  const pager = usePager();
  const { data, error, loading } = props.useList(props.orgId, pager.cursor);
  return (
    <section className="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.intro}
      <ListTable items={data?.items} loading={loading} error={error} label={props.title} empty={props.empty} columns={props.columns} row={props.row} flat />
      <Pager pager={pager} nextCursor={data?.nextCursor} />
    </section>
  );
}
