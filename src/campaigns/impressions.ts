// Impressions, kept off the request path: counted in memory per campaign, variant and UTC day,
// added to the table once a second in one statement; a failed write keeps the counts for the next.
import type { Logger } from '../log.ts';
import type { ImpressionCount } from '../store/repositories/campaign-stats.ts';

const FLUSH_EVERY_MS = 1000;

export class ImpressionCounter {
  readonly #write: (counts: ImpressionCount[]) => Promise<void>;
  readonly #logger: Logger;
  #pending = new Map<string, ImpressionCount>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(write: (counts: ImpressionCount[]) => Promise<void>, logger: Logger) {
    this.#write = write;
    this.#logger = logger;
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  record(orgId: string, campaignId: string, variant: number, at: Date, n = 1): void {
    const day = at.toISOString().slice(0, 10);
    const key = `${campaignId}|${variant}|${day}`;
    const count = this.#pending.get(key);
    if (count) count.count += n;
    else this.#pending.set(key, { orgId, campaignId, variant, day, count: n });
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#flushing = this.#flushing.then(() =>
      this.#write(batch).catch((err) => {
        this.#logger.warn({ err, rows: batch.length }, 'could not write campaign impressions; keeping them for the next flush');
        for (const c of batch) this.record(c.orgId, c.campaignId, c.variant, new Date(`${c.day}T00:00:00Z`), c.count);
      }),
    );
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
