// Open counts of the tracking pixel, kept off the request path: counted in memory per user and
// day, written once a second in one statement (lib/write-behind.ts; a crash loses at most that second).
import type { Logger } from '../log.ts';
import type { OpenCount } from '../store/repositories/opens.ts';
import { WriteBehindCounts } from '../lib/write-behind.ts';
import { UtcDay } from '../lib/utc-day.ts';

// Fetches that are not a person opening the mail: Gmail's image proxy fetches once for many
// opens, Yahoo's likewise, and Apple Mail Privacy Protection prefetches every image with a bare
// "Mozilla/5.0" user agent. They are counted apart.
export function isProxy(userAgent: string | undefined): boolean {
  if (!userAgent) return false;
  return /GoogleImageProxy|YahooMailProxy|ggpht\.com/i.test(userAgent) || userAgent.trim() === 'Mozilla/5.0';
}

export class OpenCounter {
  readonly #counts: WriteBehindCounts<OpenCount>;

  constructor(write: (counts: OpenCount[]) => Promise<void>, logger: Logger) {
    this.#counts = new WriteBehindCounts<OpenCount>({
      write,
      keyOf: (c) => `${c.userId}|${c.day}`,
      merge: (into, from) => {
        into.real += from.real;
        into.proxied += from.proxied;
      },
      onError: (err, rows) => logger.warn({ err, rows }, 'could not write open counts; keeping them for the next flush'),
    });
  }

  readonly #day = new UtcDay();

  record(userId: string, proxied: boolean, at: Date): void {
    this.#counts.add({ userId, day: this.#day.of(at), real: proxied ? 0 : 1, proxied: proxied ? 1 : 0 });
  }

  flush(): Promise<void> {
    return this.#counts.flush();
  }

  close(): Promise<void> {
    return this.#counts.close();
  }
}
