// A list shown as a table, with its states the same way on every page: the error, a spinner while
// the first answer is on its way, what an empty list says, else the table (named by `label`) with
// its column heads and the caller's rows. Column heads given as text are plain `<th scope="col">`;
// a sortable or hidden head is passed as its own element.
import { Fragment, useLayoutEffect, useRef, type ReactNode } from 'react';
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
  return (
    <>
      <ErrorMessage error={props.error} />
      {props.loading && !items ? <Loading /> : null}
      {items && items.length === 0 && props.empty ? <Empty>{props.empty}</Empty> : null}
      {items && items.length > 0 ? (
        <TableWrap label={props.label} flat={props.flat}>
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
        </TableWrap>
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

/**
 * The box a table sits in: it scrolls sideways when the table is wider than its place, and then the
 * keyboard must reach it too (a tab stop named as the table, `label`). Without the card shadow when `flat`.
 */
export function TableWrap(props: { label: string; flat?: boolean; children: ReactNode }) {
  const wrap = useRef<HTMLDivElement>(null);
  useScrollRegion(wrap, props.label);
  return (
    <div ref={wrap} className={props.flat ? 'table-wrap flat' : 'table-wrap'}>
      {props.children}
    </div>
  );
}

/**
 * Makes the element a tab stop named as the table (`tabIndex`, `role="region"`, `aria-label`) while
 * it is narrower than its content, so that the keyboard can scroll it sideways, and no tab stop
 * while it is not. Set on the element itself, not through React's state: the cells change width
 * as their contents load (a person's name after their id), and a state update would render the
 * attributes a task later, when the table already scrolls (an accessibility check in that gap
 * found a scrolling region no keyboard could reach). A MutationObserver's callback runs before the
 * next task, so the attributes change with the content; a ResizeObserver follows the window.
 */
function useScrollRegion(ref: { current: HTMLElement | null }, label: string): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.tabIndex = 0;
        el.setAttribute('role', 'region');
        el.setAttribute('aria-label', label);
      } else {
        el.removeAttribute('tabindex');
        el.removeAttribute('role');
        el.removeAttribute('aria-label');
      }
    };
    measure();
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    if (el.firstElementChild) resized.observe(el.firstElementChild);
    const changed = new MutationObserver(measure);
    changed.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      resized.disconnect();
      changed.disconnect();
    };
  }, [ref, label]);
}
