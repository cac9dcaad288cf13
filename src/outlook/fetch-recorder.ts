// What the add-in's fetches left for each user (their `outlook` deployment), written off the request
// path (src/lib/throttled-writes.ts): a user's first fetch on this instance, or one with another
// outcome, is written at once; the same again at most once a minute; several users in one write.
import type { Logger } from '../log.ts';
import type { AddinFetch } from '../store/repositories/outlook.ts';
import { ThrottledWrites } from '../lib/throttled-writes.ts';

export class FetchRecorder {
  readonly #writes: ThrottledWrites<AddinFetch>;

  constructor(write: (fetches: AddinFetch[]) => Promise<void>, logger: Logger) {
    this.#writes = new ThrottledWrites(write, (err, fetches) => logger.warn({ err, fetches }, 'could not record add-in fetches'));
  }

  record(fetch: AddinFetch): void {
    this.#writes.record(`${fetch.orgId}:${fetch.userId}`, fetch, fetch.at.getTime(), JSON.stringify(fetch.outcome));
  }

  close(): Promise<void> {
    return this.#writes.close();
  }
}
