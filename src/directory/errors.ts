// What an outside directory or mailbox service (Google, Microsoft; LDAP later) can answer that an
// admin must read, and the one place that decides what a job or a dry run makes of it. Each
// connector's error (google/errors.ts's GoogleError, microsoft/graph.ts's MicrosoftError) extends
// ConnectorError with its own kinds; everything here reads only what they share.
import { AppError } from '../kernel/errors.ts';
import { JobFailedError, RetryableJobError } from '../jobs/queue.ts';
import { SecretError } from '../secrets/module.ts';
import type { DirectorySource } from '../store/schema.ts';

export interface ConnectorErrorOptions {
  /** Trying again later may help (a 429, a 5xx, the service unreachable). */
  retryable?: boolean;
  /** When the service (or the backoff) says to try again. */
  retryAfterMs?: number | undefined;
  /** The HTTP status the service answered (0 when it did not answer). */
  status?: number;
  cause?: unknown;
}

export class ConnectorError extends Error {
  /** Which service said it. */
  readonly source: DirectorySource;
  /** The connector's own word for what went wrong (`delegation`, `credentials`, `other`, …). */
  readonly kind: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number;
  constructor(source: DirectorySource, kind: string, message: string, options: ConnectorErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ConnectorError';
    this.source = source;
    this.kind = kind;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status ?? 0;
  }
}

/** What the job queue should make of a failure: retry later, or fail with a message for the admins; anything else goes on as it is (a generic message, logged). */
export function toJobError(err: unknown): unknown {
  if (err instanceof ConnectorError) {
    return err.retryable ? new RetryableJobError(err.message, { retryAfterMs: err.retryAfterMs, cause: err }) : new JobFailedError(err.message, { cause: err });
  }
  if (err instanceof SecretError) return new JobFailedError(err.message, { cause: err });
  if (err instanceof AppError && err.status < 500) return new JobFailedError(err.message, { cause: err });
  return err;
}

/** The message a failed run leaves on the connection (its `lastError`): the error's own when it is meant for admins. */
export function failureMessage(err: unknown): string {
  if (err instanceof ConnectorError || err instanceof SecretError || err instanceof AppError) return err.message;
  return 'Internal error.';
}

/** A dry run that could not read the directory: a 400 saying why (details name the connector's kind, or `secret`); anything else as it is. */
export function toDryRunError(err: unknown, source: DirectorySource): unknown {
  if (err instanceof ConnectorError || err instanceof SecretError) {
    const kind = err instanceof ConnectorError ? err.kind : 'secret';
    return new AppError('BAD_REQUEST', `The directory could not be read: ${err.message}`, { details: { [source]: kind } });
  }
  return err;
}
