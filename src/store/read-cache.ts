// A bounded read-through cache for hot reads (keys, orgs, users, templates). The instance that
// writes forgets the entry at once; other instances see a change when the entry expires
// (CACHE_TTL_MS, at most 5 s). With the embedded database there are no other instances (PGlite
// belongs to one process), so entries live until they are forgotten or pushed out.
import { LRUCache } from 'lru-cache';
import { entryBound } from '../lib/lru.ts';

const MISSING = Symbol('missing');


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
