// lastUsedAt, written off the request path: a key's first use on this instance is written at once,
// later uses at most once a minute per key, in one batched statement.
import type { Logger } from '../log.ts';

const MIN_INTERVAL_MS = 60_000;
const FLUSH_EVERY_MS = 1000;

export class KeyUsageRecorder {
  readonly #write: (uses: { keyId: string; at: Date }[]) => Promise<void>;
  readonly #logger: Logger;
  readonly #lastWritten = new Map<string, number>();
  readonly #pending = new Map<string, Date>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(write: (uses: { keyId: string; at: Date }[]) => Promise<void>, logger: Logger) {
    this.#write = write;
    this.#logger = logger;
  }

  record(keyId: string, at: Date): void {
    const last = this.#lastWritten.get(keyId);
    if (last !== undefined && at.getTime() - last < MIN_INTERVAL_MS) return;
    this.#lastWritten.set(keyId, at.getTime());
    this.#pending.set(keyId, at);
    // The first use is flushed right away (next tick); bursts after it share one statement.
    this.#schedule(last === undefined ? 0 : FLUSH_EVERY_MS);
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
    const uses = [...this.#pending].map(([keyId, at]) => ({ keyId, at }));
    this.#pending.clear();
    this.#flushing = this.#flushing.then(() =>
      this.#write(uses).catch((err) => {
        // Not fatal: the next use writes again.
        for (const u of uses) this.#lastWritten.delete(u.keyId);
        this.#logger.warn({ err, keys: uses.length }, 'could not record API key use');
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
