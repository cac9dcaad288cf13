// Batches database work: work that arrives while a batch runs waits and goes into the next batch
// together, so a burst of N items costs a few statements instead of N (group commit for writes,
// one `IN (…)` query for reads). An item that
// arrives when nothing is running starts a batch in the same turn of the event loop (setImmediate:
// after the requests already read in this turn, so they share it); a lone item waits for nothing
// else. Not a microtask: the embedded database answers in microtasks, so a batch started there
// would finish before the next request is even read, and every batch would hold one item.
// Hand-written because the batching libraries (DataLoader and the like) batch by tick or by timer,
// not "while the previous batch runs".

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

export class Batcher<T, R> {
  readonly #run: (items: T[]) => Promise<Settled<R>[]>;
  readonly #max: number;
  #queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  #running = false;

  /** run answers one settled result per item, in order; maxBatch bounds a batch. */
  constructor(run: (items: T[]) => Promise<Settled<R>[]>, maxBatch: number) {
    this.#run = run;
    this.#max = maxBatch;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#max);
        let results: Settled<R>[];
        try {
          results = await this.#run(batch.map((b) => b.item));
        } catch (error) {
          results = batch.map(() => ({ ok: false, error }));
        }
        batch.forEach((b, i) => {
          const r = results[i] ?? { ok: false, error: new Error('no result for this item') };
          if (r.ok) b.resolve(r.value);
          else b.reject(r.error);
        });
      }
    } finally {
      this.#running = false;
    }
  }
}
