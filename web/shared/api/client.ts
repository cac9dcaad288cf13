// The one API client of a web app: the project's client (client/, openapi-fetch typed by the
// committed OpenAPI document) over a fetch that adds the ID token, renews it once on a 401 (then
// signs in again), waits out a 429's Retry-After, gives up on a request unanswered after a minute, and reports a 402 so the payment banner shows. Every call goes through `call`, which returns the
// data or throws an ApiError carrying the envelope's message.
import { createApiClient, type ApiClient } from '../../../client/index.ts';
import { apiErrorFrom } from './errors.ts';
import { notices } from '../notices.ts';

export type Api = ApiClient;

const MAX_RETRY_AFTER_S = 60;
const RETRIES_ON_429 = 3;
/** A call the service has not answered by then fails (and says so) rather than spinning forever. */
const TIMEOUT_MS = 60_000;

/** What the client needs of the sign-in (auth/session.ts's Session is one). */
export interface TokenSource {
  readonly config: { apiUrl: string };
  token(): Promise<string | undefined>;
  renew(): Promise<boolean>;
  signIn(): Promise<never>;
}

export interface ApiHooks {
  /** A write answered 402: the org's plan blocks it. */
  onPaymentRequired?: () => void;
  /** How long one request may take (default TIMEOUT_MS). */
  timeoutMs?: number;
}

export function createApi(session: TokenSource, hooks: ApiHooks = {}): Api {
  const authedFetch = async (input: Request): Promise<Response> => {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const request = input.clone();
      const token = await session.token();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      const response = await fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(hooks.timeoutMs ?? TIMEOUT_MS)]) });
      if (response.status === 401 && !renewed) {
        renewed = true;
        if (await session.renew()) continue;
        await session.signIn();
      }
      if (response.status === 429 && attempt < RETRIES_ON_429) {
        const waitS = Math.min(Number(response.headers.get('retry-after')) || 1, MAX_RETRY_AFTER_S);
        const done = notices.show({ kind: 'info', text: `The service is busy; trying again in ${waitS} s.` });
        await new Promise((r) => setTimeout(r, waitS * 1000));
        done();
        continue;
      }
      if (response.status === 402) hooks.onPaymentRequired?.();
      return response;
    }
  };
  return createApiClient({ baseUrl: session.config.apiUrl, fetch: authedFetch });
}

/** The data of an openapi-fetch answer, or the envelope's error thrown. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw apiErrorFrom(response.status, error);
  return data as T;
}
