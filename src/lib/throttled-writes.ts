// Writes that follow reads, kept off the request path (an API key's lastUsedAt, the add-in's last
// fetch per user): an id's first value on this instance, or one whose signature changed, is written
// at once (next tick); the same again at most once a minute per id; what arrives within a second
// goes into one write. A failed write is logged and forgotten, so the next value writes again.
// Hand-written: the batching libraries batch by tick or size, not "at most once a minute per id".

const MIN_INTERVAL_MS = 60_000;
const FLUSH_EVERY_MS = 1000;

export class ThrottledWrites<V> {
  readonly #write: (values: V[]) => Promise<void>;
  readonly #warn: (err: unknown, count: number) => void;
  readonly #lastWritten = new Map<string, { at: number; signature: string }>();
  readonly #pending = new Map<string, V>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(write: (values: V[]) => Promise<void>, warn: (err: unknown, count: number) => void) {
    this.#write = write;
    this.#warn = warn;
  }

  /** `at` in ms; `signature` tells a changed value from the same one again (none: every value is the same). */
  record(id: string, value: V, at: number, signature = ''): void {
    const last = this.#lastWritten.get(id);
    const same = last !== undefined && last.signature === signature;
    if (same && at - last.at < MIN_INTERVAL_MS) return;
    this.#lastWritten.set(id, { at, signature });
    this.#pending.set(id, value);
    this.#schedule(same ? FLUSH_EVERY_MS : 0);
  }

  #schedule(delayMs: number): void {
    if (this.#timer) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, delayMs);
    this.#timer.unref();
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing;
    const ids = [...this.#pending.keys()];
    const values = [...this.#pending.values()];
    this.#pending.clear();
    this.#flushing = this.#flushing.then(() =>
      this.#write(values).catch((err) => {
        for (const id of ids) this.#lastWritten.delete(id);
        this.#warn(err, values.length);
      }),
    );
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
