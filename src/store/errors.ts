/** True for PostgreSQL's unique_violation (23505), from pg and from PGlite alike. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}

/**
 * True when PostgreSQL refused a statement for the data it was given (SQLSTATE class 22, a data
 * exception such as a NUL in text or an address that is not one; class 23, a constraint): the same
 * values will be refused again, whatever the database's state. From pg and from PGlite alike.
 */
export function isRefusedData(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^2[23]/.test(code);
}

/** Why the database could not serve a statement: the answer is 503, whatever the statement was. */
export type UnavailableReason = 'unreachable' | 'timeout';

/**
 * The database did not serve a statement: the connection failed or was ended (a failover, a restart,
 * `pg_terminate_backend`), or a timeout fired. The HTTP layer answers 503 with Retry-After; `cause`
 * keeps the driver's error for the log.
 */
export class DatabaseUnavailableError extends Error {
  readonly reason: UnavailableReason;
  constructor(reason: UnavailableReason, cause: unknown) {
    super(`database ${reason}`, { cause });
    this.name = 'DatabaseUnavailableError';
    this.reason = reason;
  }
}

// SQLSTATEs that say the server, not the statement, is the problem: connection exceptions (08),
// the server ending the session (admin shutdown, crash, starting up), insufficient resources (53),
// and a read-only transaction (a failover that left us on a replica). Statement and lock timeouts
// cancel only the statement: the connection stays usable.
const SERVER_GONE = /^(08|53|57P0[1-3]|25006)/;
const TIMED_OUT = /^(57014|55P03)$/;
// node-postgres gives its own connection failures no code; these are its messages (pg 8).
const DRIVER_GONE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|Query read timeout|timeout exceeded when trying to connect)/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether a driver error means the database is unavailable, and whether the connection it came on
 * must be thrown away. Undefined for an error of the statement itself (a constraint, bad input).
 */
export function classifyDatabaseError(err: unknown): { reason: UnavailableReason; discard: boolean } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && TIMED_OUT.test(code)) return { reason: 'timeout', discard: false };
  if (typeof code === 'string' && SERVER_GONE.test(code)) return { reason: 'unreachable', discard: true };
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return { reason: 'unreachable', discard: true };
  if (typeof message === 'string' && DRIVER_GONE.test(message)) {
    return { reason: /timeout/i.test(message) ? 'timeout' : 'unreachable', discard: true };
  }
  return undefined;
}

/**
 * Strips what a driver error quotes of the data: PGlite attaches the statement's parameters
 * (`params`, `queryOptions`), and PostgreSQL's `detail` quotes row values ("Failing row contains
 * (…)", "Key (email)=(…)"). The message, SQLSTATE, constraint and SQL text stay for the log.
 */
export function withoutValues<E>(err: E): E {
  if (typeof err === 'object' && err !== null) {
    const e = err as Record<string, unknown>;
    delete e.params;
    delete e.queryOptions;
    if (typeof e.detail === 'string' && /\(.*\)/.test(e.detail)) e.detail = '[values withheld]';
  }
  return err;
}
