// Bounds shared by every in-process LRU (read caches, rate-limit buckets, verified tokens).

/**
 * lru-cache options for at most `entries` entries. Given `max`, lru-cache allocates its arrays
 * for `max` slots up front (key, value, links, and with a TTL two more): the service's caches
 * held ~18 MB before caching anything. Counted through `maxSize` instead (each entry size 1), the
 * bound is the same and the arrays grow with use.
 */
export function entryBound(entries: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: () => 1 };
}
