import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const CORRELATION_HEADER = 'x-correlation-id';

// Printable ASCII without spaces, at most 128 characters: safe to echo in a header and a log line.
const USABLE = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's correlation id: the client's X-Correlation-Id when usable, else a new one.
 * An unusable value (too long, control characters, several headers) is replaced, never rejected.
 */
export function correlationIdOf(req: IncomingMessage): string {
  const given = req.headers[CORRELATION_HEADER];
  return typeof given === 'string' && USABLE.test(given) ? given : randomUUID();
}
