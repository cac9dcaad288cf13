// lastUsedAt, written off the request path (src/lib/throttled-writes.ts): a key's first use on this
// instance is written at once, later uses at most once a minute per key, in one batched statement.
import type { Logger } from '../log.ts';
import { ThrottledWrites } from '../lib/throttled-writes.ts';

export type KeyUse = { keyId: string; at: Date };

export class KeyUsageRecorder {
  readonly #writes: ThrottledWrites<KeyUse>;

  constructor(write: (uses: KeyUse[]) => Promise<void>, logger: Logger) {
    this.#writes = new ThrottledWrites(write, (err, keys) => logger.warn({ err, keys }, 'could not record API key use'));
  }

  record(keyId: string, at: Date): void {
    this.#writes.record(keyId, { keyId, at }, at.getTime());
  }

  flush(): Promise<void> {
    return this.#writes.flush();
  }

  close(): Promise<void> {
    return this.#writes.close();
  }
}
