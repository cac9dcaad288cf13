// Template work waiting for a render thread, in one line per org, served in turn (DECISIONS wave 3:
// no tenant slows another). Before, work went to the threads in the order it came: one org's
// renders of a template that spends its whole CPU limit for each of its users (a batch of them, a
// second of a thread) held every other org's saves, previews and first renders behind them. Now
// an org with work waiting is served before another org's next turn, whatever that org queued.

export class FairQueue<T> {
  // A Map iterates in insertion order: the first key is the org whose turn is next.
  readonly #lines = new Map<string, T[]>();
  readonly #maxPerOrg: number;

  /** `maxPerOrg`: what one org may have waiting; past it, that org's next piece of work is refused. */
  constructor(maxPerOrg: number) {
    this.#maxPerOrg = maxPerOrg;
  }

  /** Queues at the back of the org's line; false when the line is full. */
  push(orgId: string, item: T): boolean {
    const line = this.#lines.get(orgId);
    if (!line) {
      this.#lines.set(orgId, [item]);
      return true;
    }
    if (line.length >= this.#maxPerOrg) return false;
    line.push(item);
    return true;
  }

  /** Work taken but not done (a thread's turn ended first) goes back to the front of its org's line. */
  putBack(orgId: string, items: T[]): void {
    const line = this.#lines.get(orgId);
    if (line) line.unshift(...items);
    else this.#lines.set(orgId, items);
  }

  /**
   * The next org's turn: its first piece of work and up to `max - 1` that follow it and go
   * `together` with it (renders, batched). The org goes to the back of the turns.
   */
  take(together: (first: T, next: T) => boolean, max: number): { orgId: string; items: T[] } | undefined {
    const next = this.#lines.entries().next();
    if (next.done) return undefined;
    const [orgId, line] = next.value;
    let n = 1;
    while (n < max && n < line.length && together(line[0]!, line[n]!)) n++;
    const items = line.splice(0, n);
    this.#lines.delete(orgId);
    if (line.length > 0) this.#lines.set(orgId, line);
    return { orgId, items };
  }
}
