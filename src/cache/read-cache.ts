// A bounded read-through cache for hot reads of database rows. Which rows, for how long, and
// which writes forget them is declared in namespaces.ts.
import { LRUCache } from 'lru-cache';
import { entryBound } from '../lib/lru.ts';

const MISSING = Symbol('missing');

export class ReadCache<V extends object> {
  readonly #cache: LRUCache<string, V | typeof MISSING> | undefined;
  /**
   * The load under way per key, the latest one. Concurrent misses of a key share it: when an entry
   * lapses (CACHE_TTL_MS on a PostgreSQL server) under load, every request in flight missed at once
   * and each sent the same query (BENCHMARKS.md, "One load per key"). A key forgotten (a write
   * committed) while a load that read before the write is under way must not get the old row back
   * from it: with no lifetime (the embedded store's), it would stay until the next write. delete()
   * drops the entry, so later misses start a load of their own, and a load stores its value only
   * while its entry is the key's.
   */
  readonly #loading = new Map<string, { promise?: Promise<V | undefined> }>();

  /** ttlMs: Infinity keeps entries until forgotten; 0 turns caching off. */
  constructor(opts: { max: number; ttlMs: number }) {
    if (opts.ttlMs <= 0) return;
    this.#cache = new LRUCache({ ...entryBound(opts.max), ...(Number.isFinite(opts.ttlMs) ? { ttl: opts.ttlMs } : {}) });
  }

  /** The cached value, or `load`'s (a miss is remembered too: an unknown key costs one query), or that of a load of the key already under way. */
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.#cache?.get(key);
    // Not an async function: a hit (every hot request, several times) is one settled promise.
    if (hit !== undefined) return Promise.resolve(hit === MISSING ? undefined : hit);
    // Uncached (a TTL of 0): a loader that throws at once is a rejected promise, as a cached miss's is.
    if (!this.#cache) return new Promise((resolve) => resolve(load()));
    const underWay = this.#loading.get(key)?.promise;
    if (underWay) return underWay;
    // The entry is the key's before the load starts, so a load that fails at once still removes it.
    const entry: { promise?: Promise<V | undefined> } = {};
    this.#loading.set(key, entry);
    entry.promise = this.#load(this.#cache, key, entry, load);
    return entry.promise;
  }

  async #load(cache: LRUCache<string, V | typeof MISSING>, key: string, entry: object, load: () => Promise<V | undefined>): Promise<V | undefined> {
    try {
      const value = await load();
      if (this.#loading.get(key) === entry) cache.set(key, value ?? MISSING);
      return value;
    } finally {
      if (this.#loading.get(key) === entry) this.#loading.delete(key);
    }
  }

  /** The value held, without loading: `null` for a remembered miss, `undefined` when nothing is held (a hot path's synchronous look). */
  peek(key: string): V | null | undefined {
    const hit = this.#cache?.get(key);
    return hit === MISSING ? null : hit;
  }

  delete(key: string): void {
    this.#cache?.delete(key);
    this.#loading.delete(key);
  }

  /** Whether a value (or a remembered miss) is held for the key. */
  has(key: string): boolean {
    return this.#cache?.has(key) ?? false;
  }
}
