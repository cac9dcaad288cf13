// Paging through a list whose position is in the address (`cursor`), with the cursors behind kept
// there too (`back`), so Previous works after a reload and a page is a link.
import { useSearchParams } from 'react-router';
import { Button } from '../../shared/components/Button.tsx';

export function CursorPager({ nextCursor, label = 'Pages' }: { nextCursor: string | null | undefined; label?: string }) {
  const [params, setParams] = useSearchParams();
  const back = params.get('back')?.split(' ').filter(Boolean) ?? [];
  const cursor = params.get('cursor');
  const page = cursor ? back.length + 2 : 1;
  if (page === 1 && !nextCursor) return null;
  const go = (to: string | undefined, stack: string[]) =>
    setParams((p) => {
      const n = new URLSearchParams(p);
      if (to) n.set('cursor', to);
      else n.delete('cursor');
      if (stack.length) n.set('back', stack.join(' '));
      else n.delete('back');
      return n;
    });
  return (
    <nav className="pager" aria-label={label}>
      <Button onClick={() => go(back.at(-1), back.slice(0, -1))} disabled={page === 1}>
        Previous
      </Button>
      <span className="muted">Page {page}</span>
      <Button onClick={() => nextCursor && go(nextCursor, cursor ? [...back, cursor] : back)} disabled={!nextCursor}>
        Next
      </Button>
    </nav>
  );
}
