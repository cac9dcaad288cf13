// Paging through a list whose position is in the address (`cursor`), with the cursors behind kept
// there too (`back`), so Previous works after a reload and a page is a link.
import { useSearchParams } from 'react-router';
import { PagerNav } from '../../shared/components/Pager.tsx';

export function CursorPager({ nextCursor, label }: { nextCursor: string | null | undefined; label?: string }) {
  const [params, setParams] = useSearchParams();
  const back = params.get('back')?.split(' ').filter(Boolean) ?? [];
  const cursor = params.get('cursor');
  const page = cursor ? back.length + 2 : 1;
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
    <PagerNav
      page={page}
      hasNext={!!nextCursor}
      onPrevious={() => go(back.at(-1), back.slice(0, -1))}
      onNext={() => nextCursor && go(nextCursor, cursor ? [...back, cursor] : back)}
      label={label}
    />
  );
}
