// The timing rule (DECISIONS wave 3, "Clicks"): a scanner fetches every link of a message within
// seconds; a person follows one. When the same address fetches two or more distinct links of one
// signature (org and user) within 10 s, the second and later are marked. In memory per instance: a
// scan comes from one address in one burst, which one instance's view catches in practice.
import { LRUCache } from 'lru-cache';

export const TIMING_WINDOW_MS = 10_000;

export class RecentClicks {
  readonly #seen = new LRUCache<string, { destination: string; at: number }[]>({ max: 100_000 });

  /** Whether this click follows another link of the same signature from the same address within the window. */
  judge(address: string, orgId: string, userId: string, destination: string, at: number): boolean {
    const key = `${address}|${orgId}|${userId}`;
    const recent = (this.#seen.get(key) ?? []).filter((c) => at - c.at < TIMING_WINDOW_MS && at >= c.at);
    const suspected = recent.some((c) => c.destination !== destination);
    recent.push({ destination, at });
    this.#seen.set(key, recent.slice(-20));
    return suspected;
  }
}
