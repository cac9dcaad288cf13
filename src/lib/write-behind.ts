// Counts kept off the request path: added up in memory by key and written once a second in one
// statement; a failed write keeps its rows for the next flush (added to what arrived meanwhile), so
// only a crash loses counts, at most a second's. The open counter (tracking/) and the campaigns'
// impressions (campaigns/) are two uses. Hand-written because what it does is small and specific:
// Batcher (store/batcher.ts) answers each caller, while counts need no answer and merge by key.

const FLUSH_EVERY_MS = 1000;

export class WriteBehindCounts<Row> {
  readonly #write: (rows: Row[]) => Promise<void>;
  readonly #keyOf: (row: Row) => string;
  readonly #merge: (into: Row, from: Row) => void;
  readonly #onError: (err: unknown, rows: number) => void;
  #pending = new Map<string, Row>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(opts: {
    write: (rows: Row[]) => Promise<void>;
    keyOf: (row: Row) => string;
    merge: (into: Row, from: Row) => void;
    onError: (err: unknown, rows: number) => void;
  }) {
    this.#write = opts.write;
    this.#keyOf = opts.keyOf;
    this.#merge = opts.merge;
    this.#onError = opts.onError;
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  /** Adds a row's counts to the pending row of its key (the row is kept, not copied, when new). */
  add(row: Row): void {
    const key = this.#keyOf(row);
    const pending = this.#pending.get(key);
    if (pending) this.#merge(pending, row);
    else this.#pending.set(key, row);
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#flushing = this.#flushing.then(() =>
      this.#write(batch).catch((err: unknown) => {
        this.#onError(err, batch.length);
        for (const row of batch) this.add(row);
      }),
    );
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
