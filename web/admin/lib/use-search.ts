// A list's filters kept in the address (so a filtered list is a link staff can share), with the
// page's cursor: changing a filter goes back to the first page.
import { useSearchParams } from 'react-router';

export function useSearch<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const cursor = params.get('cursor') ?? undefined;
  /** Sets filters (empty removes one) and starts again from the first page. */
  const set = (changes: Partial<Record<K, string>>) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      for (const [k, v] of Object.entries(changes) as [K, string][]) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      next.delete('cursor');
      next.delete('back');
      return next;
    });
  /** Query parameters for the API: the filters that are set. */
  const query = Object.fromEntries(Object.entries(values).filter(([, v]) => v)) as Partial<Record<K, string>>;
  return { values, query, cursor, set };
}
