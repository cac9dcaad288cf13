// What an open database is, apart from how one is opened (db.ts): the PGlite and PostgreSQL
// implementations (pglite-dialect.ts, postgres.ts) name these types without importing db.ts,
// which imports them.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export type Db = Kysely<DB>;

/** A connection pool's use at one moment (the metrics report it). */
export interface PoolStats {
  /** Connections open. */
  total: number;
  /** Connections open and not lent to a query or transaction. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

export interface Database {
  readonly db: Db;
  readonly kind: 'embedded' | 'postgres';
  /** Where the data lives, for the start-up log (no password). */
  readonly description: string;
  /**
   * Embedded only: the directory that holds files beside the database (images, src/images/files.ts):
   * `DATA_DIR` on disk; in memory, a temporary one that lives as long as the database (closing
   * removes it). None on a PostgreSQL server, whose rows keep everything for every instance.
   */
  readonly filesDir?: string;
  /** Runs a multi-statement SQL script (migrations). */
  execScript(script: string): Promise<void>;
  /** Runs `work` where statements have no time limit (migrations); the same db when embedded. */
  unbounded<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Throws when the database does not answer within timeoutMs. */
  ping(timeoutMs: number): Promise<void>;
  /** The connection pool's use now (for the metrics). */
  poolStats(): PoolStats;
  /**
   * Calls `onPayload` with each NOTIFY on `channel` (from any session, this one's included) until
   * the returned function is called. Best effort: a notification sent while a PostgreSQL server's
   * listening connection is being reopened is lost, so what it announces must also be found some
   * other way (the job queues' polls).
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** A channel's name as LISTEN takes it: a plain lower-case identifier (LISTEN takes no parameter). */
export function channelName(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  return channel;
}
