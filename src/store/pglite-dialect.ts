// A Kysely dialect for PGlite, written here because the published ones hand the single PGlite
// connection to concurrent callers: a transaction's BEGIN ... COMMIT could then interleave with
// other requests' queries. This one gives the connection to one caller at a time (a FIFO lock),
// which is exactly PGlite's model: one session, one query at a time.
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { withoutValues } from './errors.ts';
import type { PoolStats } from './database.ts';

class PGliteConnection implements DatabaseConnection {
  readonly #client: PGlite;
  constructor(client: PGlite) {
    this.#client = client;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    let result: { rows: unknown[]; affectedRows?: number };
    try {
      // Without parameters, the simple protocol (exec) also runs multi-statement scripts (migrations).
      result =
        compiledQuery.parameters.length === 0
          ? ((await this.#client.exec(compiledQuery.sql)).at(-1) ?? { rows: [], affectedRows: 0 })
          : await this.#client.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    } catch (err) {
      // PGlite attaches the statement's parameters to its errors, and errors get logged.
      throw withoutValues(err);
    }
    return result.affectedRows !== undefined && result.affectedRows > 0
      ? { rows: result.rows as R[], numAffectedRows: BigInt(result.affectedRows) }
      : { rows: result.rows as R[] };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results.');
  }
}

class PGliteDriver implements Driver {
  readonly #client: PGlite;
  readonly #connection: PGliteConnection;
  #tail: Promise<void> = Promise.resolve();
  readonly #releases = new Map<DatabaseConnection, () => void>();
  /** Callers that asked for the connection and have not released it (the holder included). */
  #queued = 0;

  constructor(client: PGlite) {
    this.#client = client;
    this.#connection = new PGliteConnection(client);
  }

  async init(): Promise<void> {
    await this.#client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    this.#queued++;
    await previous;
    this.#releases.set(this.#connection, release);
    return this.#connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.#releases.get(connection);
    this.#releases.delete(connection);
    if (release) this.#queued--;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async destroy(): Promise<void> {
    await this.#client.close();
  }

  /** The one connection: lent or idle, and how many callers wait for it. */
  stats(): PoolStats {
    return { total: 1, idle: this.#queued === 0 ? 1 : 0, waiting: Math.max(0, this.#queued - 1), max: 1 };
  }
}

export class PGliteDialect implements Dialect {
  readonly #client: PGlite;
  #driver: PGliteDriver | undefined;
  constructor(client: PGlite) {
    this.#client = client;
  }
  /** The connection's use (for the metrics). */
  stats(): PoolStats {
    return this.#driver?.stats() ?? { total: 1, idle: 1, waiting: 0, max: 1 };
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    this.#driver = new PGliteDriver(this.#client);
    return this.#driver;
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
