// `signature.rendered` at the speed of rendering (docs/webhooks.md, "signature.rendered: one event
// per render, counted beyond ten a second"). A render must not wait for a database round trip, and
// one delivery per render would cost several times the render itself (an HTTP request, a signature,
// an attempt written) when one signature is served in a flood: so each render is recorded in memory
// here (after a cached check that the org has an endpoint subscribed to the type:
// caches.webhookRendered). Within one window (a second), the first EXACT_PER_WINDOW renders of the
// same user, template and size are an event each, as the contract has it; the renders after them
// are ONE more event whose `count` says how many renders it stands for (its `timestamp` and
// `correlationId` the first of them). So a person's signature served a few times a second gives
// exactly one event per render, and a flood costs at most EXACT_PER_WINDOW + 1 deliveries a second
// for each signature. The window's events are written as one outbox statement (events.ts): at most
// WINDOW_MS after its first render, or at once at BATCH events. A write that fails is logged and its
// events are lost (renders are not retried either): at most once on this path, unlike the events
// of writes, which commit with them.
import type { Caches } from '../cache/namespaces.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';
import { emitEvents, type OutboundEvent } from './events.ts';

const BATCH = 500;
/** Renders of one signature (user, template, size) in a window that are an event each; the rest are counted into one. */
export const EXACT_PER_WINDOW = 10;
/** The window renders are counted in: the longest an event waits before it is written. */
export const RENDERED_WINDOW_MS = 1000;
/** Events held while the buffer is being written: beyond this, new ones are dropped (and counted in the log). */
const MAX_BUFFERED = 50_000;

export interface RenderedData {
  userId: string;
  templateId: string | null;
  bytes: number;
  correlationId: string | null;
}

/** What a `signature.rendered` event carries: its render's data and how many renders it stands for (1 but for the last of a flood). */
type Counted = OutboundEvent & { data: RenderedData & { count: number } };

export class RenderedEvents {
  readonly #db: Db;
  readonly #caches: Caches;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #windowMs: number;
  /** This window's events, by org, user, template and size (insertion order: first render first). */
  #buffer = new Map<string, Counted[]>();
  /** How many events #buffer holds. */
  #events = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #dropped = 0;
  /** Renders waiting for such a check, to be counted once it answers. */
  readonly #checks = new Set<Promise<void>>();

  constructor(deps: { db: Db; caches: Caches; clock: Clock; logger: Logger; windowMs?: number | undefined }) {
    this.#db = deps.db;
    this.#caches = deps.caches;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#windowMs = deps.windowMs ?? RENDERED_WINDOW_MS;
  }

  /**
   * Called by every path that serves a signature (never previews); returns at once. The org's
   * subscription is known from the cache almost always (counted at once, no promise); otherwise
   * it is looked up and the render counted after (flush waits for such lookups).
   */
  record(orgId: string, data: RenderedData): void {
    const at = this.#clock();
    const known = this.#caches.webhookRendered.peek(orgId);
    if (known !== undefined) {
      if (known?.subscribed) this.#count(orgId, data, at);
      return;
    }
    const check = this.#subscribed(orgId).then(
      (s) => {
        if (s?.subscribed) this.#count(orgId, data, at);
      },
      (err: unknown) => this.#logger.warn({ err, orgId }, 'could not tell whether the org subscribes to signature.rendered'),
    );
    this.#checks.add(check);
    void check.finally(() => this.#checks.delete(check));
  }

  /** Concurrent first renders of an org share one query (the read cache's one load per key), and none started before an endpoint write is kept after it. */
  #subscribed(orgId: string) {
    return this.#caches.webhookRendered.get(orgId, async () => ({
      subscribed: (await outboundRepo.subscribedTypes(this.#db, orgId)).has('signature.rendered'),
    }));
  }

  #count(orgId: string, data: RenderedData, at: Date): void {
    const key = `${orgId} ${data.userId} ${data.templateId} ${data.bytes}`;
    const held = this.#buffer.get(key);
    if (held && held.length > EXACT_PER_WINDOW) {
      // Past the exact ones: the window's last event counts the rest of the flood.
      (held.at(-1) as Counted).data.count++;
      return;
    }
    if (this.#events >= MAX_BUFFERED) {
      this.#dropped++;
      return;
    }
    const event: Counted = { orgId, type: 'signature.rendered', at, data: { ...data, count: 1 } };
    if (held) held.push(event);
    else this.#buffer.set(key, [event]);
    this.#events++;
    if (this.#events >= BATCH) void this.#write();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.#write(), this.#windowMs);
      this.#timer.unref();
    }
  }

  /** Ends the window: writes what is counted (batches one after another); resolves when it is written. */
  async flush(): Promise<void> {
    if (this.#checks.size > 0) await Promise.all(this.#checks);
    return this.#write();
  }

  #write(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#events === 0) return this.#writing;
    const events = [...this.#buffer.values()].flat();
    this.#buffer = new Map();
    this.#events = 0;
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
        this.#logger.error({ renders: this.#dropped }, 'signature.rendered events dropped: the buffer was full while the database was slow');
        this.#dropped = 0;
      }
    });
    return this.#writing;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
