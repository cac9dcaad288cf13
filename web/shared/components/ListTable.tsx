// A list shown as a table, with its states the same way on every page: the error, a spinner while
// the first answer is on its way, what an empty list says, else the table (named by `label`) with
// its column heads and the caller's rows. Column heads given as text are plain `<th scope="col">`;
// a sortable or hidden head is passed as its own element.
import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import { Empty, ErrorMessage, Loading } from './Status.tsx';

export function ListTable<T>(props: {
  /** The items (undefined: not loaded yet). */
  items: readonly T[] | undefined;
  loading?: boolean;
  error?: unknown;
  /** The table's accessible name. */
  label: string;
  /** What an empty list says (nothing when undefined, e.g. on a later page). */
  empty?: ReactNode;
  columns: readonly ReactNode[];
  row: (item: T, index: number) => ReactNode;
  /** Without the card shadow (a table inside a card or dialog). */
  flat?: boolean;
  className?: string;
  busy?: boolean;
}) {
  const { items } = props;
  const wrap = useRef<HTMLDivElement>(null);
  const scrolls = useScrolls(wrap, !!items?.length);
  return (
    <>
      <ErrorMessage error={props.error} />
      {props.loading && !items ? <Loading /> : null}
      {items && items.length === 0 && props.empty ? <Empty>{props.empty}</Empty> : null}
      {items && items.length > 0 ? (
        // A table wider than its place scrolls sideways: then the keyboard must reach it too (a tab stop, named as the table).
        <div
          ref={wrap}
          className={props.flat ? 'table-wrap flat' : 'table-wrap'}
          {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-label': props.label } : {})}
        >
          <table aria-label={props.label} className={props.className} aria-busy={props.busy || undefined}>
            <thead>
              <tr>
                {props.columns.map((c, i) =>
                  typeof c === 'string' ? (
                    <th scope="col" key={c}>
                      {c}
                    </th>
                  ) : (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed; their place is their identity
                    <Fragment key={i}>{c}</Fragment>
                  ),
                )}
              </tr>
            </thead>
            <tbody>{items.map(props.row)}</tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

/** The head of a column of row buttons: named for screen readers, blank on screen. */
export const actionsColumn = (
  <th scope="col">
    <span className="sr-only">Actions</span>
  </th>
);

/** Whether the element is narrower than its content (it scrolls sideways), kept up to date as either resizes. */
function useScrolls(ref: { current: HTMLElement | null }, shown: boolean): boolean {
  const [scrolls, setScrolls] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: measured again when the table appears (shown): the ref's element is new then
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setScrolls(el.scrollWidth > el.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, [ref, shown]);
  return scrolls;
}
