// A read-like call (a preview, a compile: nothing is stored) tried again when the failure was the
// moment's, not the request's: the network, a timeout, or a 502/503/504 (the database briefly
// unreachable, an instance restarting). A refusal (4xx) or a bug (500) is shown at once. The
// client already waits out a 429's Retry-After (client.ts).
import { ApiError } from './errors.ts';

const WAITS_MS = [1000, 2000, 4000];

export function isTransient(err: unknown): boolean {
  if (err instanceof ApiError) return err.status === 502 || err.status === 503 || err.status === 504;
  // fetch rejects with a TypeError when nothing answered; AbortSignal.timeout with a TimeoutError.
  return err instanceof TypeError || (err instanceof DOMException && err.name === 'TimeoutError');
}

/**
 * `work()`, tried again after 1, 2 and 4 s while its failure is transient and `wanted()` still holds
 * (a newer request has not replaced it); the last failure is thrown.
 */
export async function retryTransient<T>(work: () => Promise<T>, wanted: () => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= WAITS_MS.length || !isTransient(err) || !wanted()) throw err;
      await new Promise((r) => setTimeout(r, WAITS_MS[attempt]));
      if (!wanted()) throw err;
    }
  }
}
