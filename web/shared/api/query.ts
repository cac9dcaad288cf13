// Server state for the pages: one cache keyed by what was asked, shared by every component that
// asks the same thing, refetched when a write invalidates it. Pages read it through useQuery and
// never copy it into their own state. Hand-written (about what TanStack Query's core does for us)
// to keep the first load small and the lockfile unchanged; it does only what the apps use.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';

export type QueryKey = readonly unknown[];

interface Entry {
  data?: unknown;
  error?: unknown;
  loading: boolean;
  fetcher: () => Promise<unknown>;
  promise?: Promise<void>;
  listeners: Set<() => void>;
  snapshot: QueryState<unknown>;
}

export interface QueryState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
}

const cache = new Map<string, Entry>();
const hash = (key: QueryKey) => JSON.stringify(key);

function publish(entry: Entry) {
  entry.snapshot = { data: entry.data, error: entry.error, loading: entry.loading };
  for (const l of entry.listeners) l();
}

function load(entry: Entry): Promise<void> {
  entry.loading = true;
  publish(entry);
  // Only the latest load of an entry may write it (an older, slower answer is dropped).
  const promise: Promise<void> = entry
    .fetcher()
    .then(
      (data) => {
        if (entry.promise !== promise) return;
        entry.data = data;
        entry.error = undefined;
      },
      (error: unknown) => {
        if (entry.promise !== promise) return;
        entry.error = error;
      },
    )
    .then(() => {
      if (entry.promise !== promise) return;
      entry.loading = false;
      publish(entry);
    });
  entry.promise = promise;
  return promise;
}

function entryFor(key: QueryKey, fetcher: () => Promise<unknown>): Entry {
  const k = hash(key);
  let entry = cache.get(k);
  if (!entry) {
    entry = { loading: false, fetcher, listeners: new Set(), snapshot: { data: undefined, error: undefined, loading: true } };
    cache.set(k, entry);
    void load(entry);
  }
  entry.fetcher = fetcher;
  return entry;
}

/** Reads `key`, fetching it with `fetcher` the first time; `enabled: false` waits. */
export function useQuery<T>(key: QueryKey, fetcher: () => Promise<T>, opts: { enabled?: boolean } = {}): QueryState<T> & { reload: () => Promise<void> } {
  const enabled = opts.enabled ?? true;
  const k = hash(key);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key's hash (k) stands for the key; the fetcher of the first subscriber is kept
  const subscribe = useCallback(
    (listener: () => void) => {
      if (!enabled) return () => {};
      const entry = entryFor(key, fetcher);
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },
    [k, enabled],
  );
  const state = useSyncExternalStore(subscribe, () =>
    enabled ? (cache.get(k)?.snapshot ?? { data: undefined, error: undefined, loading: true }) : DISABLED,
  ) as QueryState<T>;
  const reload = useCallback(async () => {
    const entry = cache.get(k);
    if (entry) await load(entry);
  }, [k]);
  return { ...state, reload };
}

const DISABLED: QueryState<unknown> = { data: undefined, error: undefined, loading: false };

/** Refetches every cached query whose key starts with `prefix` (and drops unwatched ones). */
export async function invalidate(prefix: QueryKey): Promise<void> {
  const p = hash(prefix).slice(0, -1);
  const work: Promise<void>[] = [];
  for (const [k, entry] of cache) {
    if (!k.startsWith(p)) continue;
    if (entry.listeners.size === 0) cache.delete(k);
    else work.push(load(entry));
  }
  await Promise.all(work);
}

/** Forgets everything (sign-out). */
export function clearQueries(): void {
  cache.clear();
}

/** A write: `run` resolves to its result (or undefined after showing nothing: the error is in `error`). */
export function useMutation<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [state, setState] = useState<{ pending: boolean; error: unknown }>({ pending: false, error: undefined });
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setState({ pending: true, error: undefined });
      try {
        const result = await fn(...args);
        if (mounted.current) setState({ pending: false, error: undefined });
        return result;
      } catch (error) {
        if (mounted.current) setState({ pending: false, error });
        return undefined;
      }
    },
    [fn],
  );
  const reset = useCallback(() => setState({ pending: false, error: undefined }), []);
  return { run, reset, ...state };
}
