// NOTIFY on a PostgreSQL server reaches only a session that LISTENs, which a pooled connection
// cannot be (it serves other callers between statements, and the pool closes it when idle): one
// connection of its own per instance, opened by the first listen() and reopened after a failure
// (after 1 s, doubling up to 30 s). A notification sent while it is away is lost; the callers find
// that work another way (the job queues' polls). Hand-written: node-postgres leaves reconnecting a
// listening client to its caller, and it is ~80 lines.
import pg from 'pg';
import { channelName } from './database.ts';

const RETRY_FIRST_MS = 1000;
/** How long close() waits for the server to see the connection end; then the socket is dropped. */
const END_WAIT_MS = 1000;
const RETRY_MAX_MS = 30_000;

export class PostgresListener {
  readonly #url: string;
  readonly #onLost: (err: Error) => void;
  readonly #channels = new Map<string, Set<(payload: string) => void>>();
  #client: pg.Client | undefined;
  /** The connection opened last: a failure of an earlier one, replaced already, is not news. */
  #latest: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #retryMs = RETRY_FIRST_MS;
  #closed = false;

  constructor(url: string, onLost: (err: Error) => void = () => {}) {
    this.#url = url;
    this.#onLost = onLost;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => void> {
    const name = channelName(channel);
    let callbacks = this.#channels.get(name);
    if (!callbacks) {
      callbacks = new Set();
      this.#channels.set(name, callbacks);
      // A connection open already listens now; one being opened listens to every channel it knows.
      await this.#client?.query(`LISTEN ${name}`).catch(() => {});
    }
    callbacks.add(onPayload);
    this.#connecting ??= this.#connect();
    await this.#connecting;
    const listening = callbacks;
    return () => void listening.delete(onPayload);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#client = undefined;
    // The connection opened last, open or still opening (ending one that is opening fails its
    // connect, which then stops there).
    if (this.#latest) await endWithin(this.#latest, END_WAIT_MS);
  }

  /** Opens the connection and listens to every channel; on failure, tries again later (never throws). */
  async #connect(): Promise<void> {
    if (this.#closed) return;
    // TCP keepalive probes after 30 s idle, not the system's 2 h: a connection dropped without a
    // FIN (a NAT, a failover) is found and reopened in minutes, not hours. A LISTEN that gets no
    // answer fails after 5 s, as a connect does, rather than hold the service's start.
    const client = new pg.Client({
      connectionString: this.#url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 30_000,
      connectionTimeoutMillis: 5000,
      query_timeout: 5000,
    });
    this.#latest = client;
    client.on('error', (err) => this.#lost(client, err));
    client.on('end', () => this.#lost(client, new Error('the listening connection ended')));
    client.on('notification', (message) => {
      for (const callback of this.#channels.get(message.channel) ?? []) callback(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const name of this.#channels.keys()) await client.query(`LISTEN ${name}`);
      this.#client = client;
      this.#retryMs = RETRY_FIRST_MS;
    } catch (err) {
      this.#lost(client, err as Error);
      if (!this.#closed) await endWithin(client, END_WAIT_MS);
    }
  }

  #lost(client: pg.Client, err: Error): void {
    if (client !== this.#latest) return;
    if (this.#client === client) this.#client = undefined;
    if (this.#closed || this.#timer !== undefined) return;
    this.#onLost(err);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connecting = this.#connect();
    }, this.#retryMs).unref();
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }
}

/**
 * Ends a client, dropping its socket if the server does not answer within `ms`: on a link that
 * stopped forwarding, `end()` waits for ever for the goodbye (a stopping service hung on it).
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, ms);
  });
  await Promise.race([client.end().catch(() => {}), late]);
  clearTimeout(timer);
}
