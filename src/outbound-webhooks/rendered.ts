// `signature.rendered` at the speed of rendering: a render must not wait for a database round trip,
// so each one is a push into memory here (after a cached check that the org has an endpoint
// subscribed to the type: caches.webhookRendered), and the buffer is written as one outbox
// statement (events.ts) per batch: at most a second after the first, or at once at BATCH events.
// A write that fails is logged and its events are lost (renders are not retried either): at most
// once on this path, unlike the events of writes, which commit with them.
import type { Caches } from '../cache/namespaces.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';
import { emitEvents, type OutboundEvent } from './events.ts';

const BATCH = 500;
const FLUSH_EVERY_MS = 1000;
/** Events held while the buffer is being written: beyond this, new ones are dropped (and counted in the log). */
const MAX_BUFFERED = 50_000;

export interface RenderedData {
  userId: string;
  templateId: string | null;
  bytes: number;
  correlationId: string | null;
}

export class RenderedEvents {
  readonly #db: Db;
  readonly #caches: Caches;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #buffer: OutboundEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #dropped = 0;
  /** Subscription checks under way, by org: concurrent first renders share one query. */
  readonly #loading = new Map<string, Promise<{ subscribed: boolean } | undefined>>();

  constructor(deps: { db: Db; caches: Caches; clock: Clock; logger: Logger }) {
    this.#db = deps.db;
    this.#caches = deps.caches;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  /** Called by every path that serves a signature (never previews); returns at once. */
  record(orgId: string, data: RenderedData): void {
    const at = this.#clock();
    this.#subscribed(orgId).then(
      (s) => s?.subscribed && this.#push({ orgId, type: 'signature.rendered', at, data }),
      (err: unknown) => this.#logger.warn({ err, orgId }, 'could not tell whether the org subscribes to signature.rendered'),
    );
  }

  #subscribed(orgId: string) {
    return this.#caches.webhookRendered.get(orgId, () => {
      let loading = this.#loading.get(orgId);
      if (!loading) {
        loading = outboundRepo
          .subscribedTypes(this.#db, orgId)
          .then((types) => ({ subscribed: types.has('signature.rendered') }))
          .finally(() => this.#loading.delete(orgId));
        this.#loading.set(orgId, loading);
      }
      return loading;
    });
  }

  #push(event: OutboundEvent): void {
    if (this.#buffer.length >= MAX_BUFFERED) {
      this.#dropped++;
      return;
    }
    this.#buffer.push(event);
    if (this.#buffer.length >= BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
      this.#timer.unref();
    }
  }

  /** Writes what is buffered (batches one after another); resolves when it is written. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0) return this.#writing;
    const events = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      for (let i = 0; i < events.length; i += BATCH) {
        const batch = events.slice(i, i + BATCH);
        await this.#db
          .transaction()
          .execute((tx) => emitEvents(tx, batch))
          .catch((err: unknown) => {
            this.#logger.error({ err, events: batch.length }, 'could not write signature.rendered events; they are lost');
          });
      }
      if (this.#dropped > 0) {
        this.#logger.error({ events: this.#dropped }, 'signature.rendered events dropped: the buffer was full while the database was slow');
        this.#dropped = 0;
      }
    });
    return this.#writing;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
