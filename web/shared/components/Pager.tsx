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

export function Pager({ pager, nextCursor }: { pager: ReturnType<typeof usePager>; nextCursor: string | null | undefined }) {
  if (pager.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <Button onClick={pager.previous} disabled={pager.page === 1}>
        Previous
      </Button>
      <span className="muted">Page {pager.page}</span>
      <Button onClick={() => nextCursor && pager.next(nextCursor)} disabled={!nextCursor}>
        Next
      </Button>
    </nav>
  );
}
