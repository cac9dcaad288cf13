// Cursor paging (the API's `cursor` / `nextCursor`): remembers the cursors behind, so Previous works.
import { useState } from 'react';
import { Button } from './Button.tsx';

export function usePager() {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    next: (nextCursor: string) => setStack((s) => [...s, nextCursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    reset: () => setStack([undefined]),
  };
}

export function Pager({ pager, nextCursor, label }: { pager: ReturnType<typeof usePager>; nextCursor: string | null | undefined; label?: string }) {
  return <PagerNav page={pager.page} hasNext={!!nextCursor} onPrevious={pager.previous} onNext={() => nextCursor && pager.next(nextCursor)} label={label} />;
}

/** Previous, the page number, Next; nothing when there is one page. The staff app's address-kept pager shows the same. */
export function PagerNav(props: { page: number; hasNext: boolean; onPrevious: () => void; onNext: () => void; label?: string }) {
  if (props.page === 1 && !props.hasNext) return null;
  return (
    <nav className="pager" aria-label={props.label ?? 'Pages'}>
      <Button onClick={props.onPrevious} disabled={props.page === 1}>
        Previous
      </Button>
      <span className="muted">Page {props.page}</span>
      <Button onClick={props.onNext} disabled={!props.hasNext}>
        Next
      </Button>
    </nav>
  );
}
