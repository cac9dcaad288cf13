// A bounded read-through cache for hot reads (keys, orgs, users, templates). The instance that
// writes forgets the entry at once; other instances see a change when the entry expires
// (CACHE_TTL_MS, at most 5 s). With the embedded database there are no other instances (PGlite
// belongs to one process), so entries live until they are forgotten or pushed out.
import { LRUCache } from 'lru-cache';

const MISSING = Symbol('missing');

/**
 * lru-cache options for at most `entries` entries. Given `max`, lru-cache allocates its arrays
 * for `max` slots up front (key, value, links, and with a TTL two more): the service's caches
 * held ~18 MB before caching anything. Counted through `maxSize` instead (each entry size 1), the
 * bound is the same and the arrays grow with use.
 */
export function entryBound(entries: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: () => 1 };
}

export class ReadCache<V extends object> {
  readonly #cache: LRUCache<string, V | typeof MISSING> | undefined;

  /** ttlMs: Infinity keeps entries until forgotten; 0 turns caching off. */
  constructor(opts: { max: number; ttlMs: number }) {
    if (opts.ttlMs <= 0) return;
    this.#cache = new LRUCache({ ...entryBound(opts.max), ...(Number.isFinite(opts.ttlMs) ? { ttl: opts.ttlMs } : {}) });
  }

  /** The cached value, or `load`'s (a miss is remembered too: an unknown key costs one query). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.#cache?.get(key);
    if (hit !== undefined) return hit === MISSING ? undefined : hit;
    const value = await load();
    this.#cache?.set(key, value ?? MISSING);
    return value;
  }

  delete(key: string): void {
    this.#cache?.delete(key);
  }
}
