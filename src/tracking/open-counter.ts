// Open counts of the tracking pixel, kept off the request path: counted in memory per user and
// day, written once a second in one statement (a crash loses at most that second).
import type { Logger } from '../log.ts';
import type { OpenCount } from '../store/repositories/opens.ts';

const FLUSH_EVERY_MS = 1000;

// Fetches that are not a person opening the mail: Gmail's image proxy fetches once for many
// opens, Yahoo's likewise, and Apple Mail Privacy Protection prefetches every image with a bare
// "Mozilla/5.0" user agent. They are counted apart.
export function isProxy(userAgent: string | undefined): boolean {
  if (!userAgent) return false;
  return /GoogleImageProxy|YahooMailProxy|ggpht\.com/i.test(userAgent) || userAgent.trim() === 'Mozilla/5.0';
}

export class OpenCounter {
  readonly #write: (counts: OpenCount[]) => Promise<void>;
  readonly #logger: Logger;
  #pending = new Map<string, OpenCount>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(write: (counts: OpenCount[]) => Promise<void>, logger: Logger) {
    this.#write = write;
    this.#logger = logger;
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  record(userId: string, proxied: boolean, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const key = `${userId}|${day}`;
    let count = this.#pending.get(key);
    if (!count) {
      count = { userId, day, real: 0, proxied: 0 };
      this.#pending.set(key, count);
    }
    if (proxied) count.proxied++;
    else count.real++;
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#flushing = this.#flushing.then(() =>
      this.#write(batch).catch((err) => {
        this.#logger.warn({ err, rows: batch.length }, 'could not write open counts; keeping them for the next flush');
        for (const c of batch) {
          const key = `${c.userId}|${c.day}`;
          const pending = this.#pending.get(key);
          if (pending) {
            pending.real += c.real;
            pending.proxied += c.proxied;
          } else this.#pending.set(key, c);
        }
      }),
    );
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
