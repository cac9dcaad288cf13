// The PostgreSQL server store: a node-postgres pool with timeouts, behind a thin guard that Kysely
// uses as its pool. The guard exists because node-postgres leaves three things to its caller:
//  - a connection ended by the server while checked out (a failover, `pg_terminate_backend`) emits
//    'error' on a client that has no listener, which ends the process;
//  - a client whose query timed out is handed back to the pool as healthy, with the statement still
//    running on it, so the next caller would wait behind it;
//  - its connection failures carry no code, so the HTTP layer cannot tell them from a bug.
// The guard listens on every client, discards a connection after a connection-level failure, and
// turns such failures into DatabaseUnavailableError (503). No library does this for Kysely.
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { postgresDescription } from './postgres-url.ts';
import type { DB } from './schema.ts';
import type { Database } from './database.ts';
import { classifyDatabaseError, DatabaseUnavailableError, withoutValues } from './errors.ts';
import { withTimeout } from './timeout.ts';
import { PostgresListener } from './postgres-listener.ts';

export interface PostgresTimeouts {
  /** PostgreSQL's statement_timeout: the server cancels a statement running longer. */
  statementTimeoutMs: number;
  /** The longest wait for a pooled connection, opening a new one included. */
  connectTimeoutMs: number;
}

// The client gives up this long after the server should have cancelled the statement: the server's
// cancel comes first and leaves the connection usable; the client's timer only catches a dead link.
const CLIENT_GRACE_MS = 500;
// A transaction left open (a stuck request) holds locks; the server ends such a session after this.
const IDLE_IN_TRANSACTION_MS = 10_000;
const INT8 = 20;

export function openPostgres(
  url: string,
  options: { timeouts: PostgresTimeouts; onConnectionLost?: (err: Error, which: 'pool' | 'listener') => void },
): Database {
  pg.types.setTypeParser(INT8, (v) => v);
  const { statementTimeoutMs, connectTimeoutMs } = options.timeouts;
  const pool = newPool(url, {
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + CLIENT_GRACE_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
  });
  // An idle client whose server went away: the pool drops it and tells us.
  pool.on('error', (err) => options.onConnectionLost?.(err, 'pool'));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new GuardedPool(pool) }) });
  const listener = new PostgresListener(url, (err) => options.onConnectionLost?.(err, 'listener'));
  let closed = false;
  return {
    db,
    kind: 'postgres',
    description: postgresDescription(url),
    async execScript(script) {
      await sql.raw(script).execute(db);
    },
    async unbounded(work) {
      // Migrations may wait for the migration lock and rebuild tables: a pool of one connection
      // without statement timeouts, only for them.
      const own = newPool(url, { max: 1, connectionTimeoutMillis: connectTimeoutMs });
      const ownDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new GuardedPool(own) }) });
      try {
        return await work(ownDb);
      } finally {
        await ownDb.destroy();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    async ping(timeoutMs) {
      const connecting = pool.connect();
      let client: pg.PoolClient;
      try {
        client = await withTimeout(connecting, timeoutMs);
      } catch (err) {
        connecting.then(
          (late) => late.release(true),
          () => {},
        );
        throw unavailable(err);
      }
      try {
        await withTimeout(client.query('select 1'), timeoutMs);
        client.release();
      } catch (err) {
        client.release(true);
        throw unavailable(err);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await listener.close();
      await db.destroy();
    },
  };
}

function newPool(url: string, config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 30_000, keepAlive: true, ...config });
  // A checked-out client has no listener of the pool's: without ours, a server that ends the
  // session between two statements of a request would end the process. The request learns of it
  // from its next statement ("not queryable"), which the guard turns into a 503.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

function unavailable(err: unknown): DatabaseUnavailableError {
  if (err instanceof DatabaseUnavailableError) return err;
  const reason = classifyDatabaseError(err)?.reason ?? (/timeout|no answer within/i.test(String((err as Error)?.message)) ? 'timeout' : 'unreachable');
  return new DatabaseUnavailableError(reason, err);
}

class GuardedPool implements PostgresPool {
  readonly #pool: pg.Pool;
  readonly #clients = new WeakMap<pg.PoolClient, GuardedClient>();
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }
  get options() {
    return this.#pool.options;
  }
  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      // Whatever stops us from getting a connection (refused, timed out, authentication, a
      // database that does not exist) makes the database unavailable to this request.
      throw unavailable(err);
    }
    let guarded = this.#clients.get(client);
    if (!guarded) {
      guarded = new GuardedClient(client);
      this.#clients.set(client, guarded);
    }
    return guarded;
  }
  end(): Promise<void> {
    return this.#pool.end();
  }
}

class GuardedClient {
  readonly #client: pg.PoolClient;
  #broken: Error | undefined;
  constructor(client: pg.PoolClient) {
    this.#client = client;
  }
  get processID(): number | undefined {
    return (this.#client as unknown as { processID?: number }).processID;
  }
  // Kysely's cursor form is not used here (no `cursor` in the dialect config).
  query<R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query(): never;
  async query<R>(text?: string, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    // A connection that failed once is not asked again (a rollback would wait on a dead link).
    if (this.#broken) throw new DatabaseUnavailableError('unreachable', this.#broken);
    try {
      return (await this.#client.query(text as string, parameters as unknown[])) as unknown as PostgresQueryResult<R>;
    } catch (err) {
      const failure = classifyDatabaseError(err);
      if (!failure) throw withoutValues(err);
      if (failure.discard) this.#broken = err as Error;
      throw new DatabaseUnavailableError(failure.reason, withoutValues(err));
    }
  }
  release(destroy?: boolean): void {
    // The pool ends a client released with an error instead of keeping it.
    this.#client.release(this.#broken ?? destroy);
  }
}
