// Impressions, kept off the request path: counted in memory per campaign, variant and UTC day,
// added to the table once a second in one statement (lib/write-behind.ts); a failed write keeps the counts for the next.
import type { Logger } from '../log.ts';
import type { ImpressionCount } from '../store/repositories/campaign-stats.ts';
import { WriteBehindCounts } from '../lib/write-behind.ts';
import { UtcDay } from '../lib/utc-day.ts';

export class ImpressionCounter {
  readonly #counts: WriteBehindCounts<ImpressionCount>;

  constructor(write: (counts: ImpressionCount[]) => Promise<void>, logger: Logger) {
    this.#counts = new WriteBehindCounts<ImpressionCount>({
      write,
      keyOf: (c) => `${c.campaignId}|${c.variant}|${c.day}`,
      merge: (into, from) => {
        into.count += from.count;
      },
      onError: (err, rows) => logger.warn({ err, rows }, 'could not write campaign impressions; keeping them for the next flush'),
    });
  }

  readonly #day = new UtcDay();

  record(orgId: string, campaignId: string, variant: number, at: Date, n = 1): void {
    this.#counts.add({ orgId, campaignId, variant, day: this.#day.of(at), count: n });
  }

  flush(): Promise<void> {
    return this.#counts.flush();
  }

  close(): Promise<void> {
    return this.#counts.close();
  }
}
