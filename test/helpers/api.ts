// The HTTP tests call the API through the generated client (client/index.ts), typed by the
// committed OpenAPI document: a route that drifts from the document fails the type check. Tests
// that send malformed input or check raw protocol details on purpose keep `server.request`.
import assert from 'node:assert/strict';
import { createApiClient, type ApiClient } from '../../client/index.ts';
import type { TestOrg } from './fixtures.ts';
import type { TestServer } from './server.ts';

export type { ApiClient };

/** Who calls: an org (its API key), an API key or an ID token, or nobody. */
export type Caller = TestOrg | { key: string } | { token: string } | undefined;

/** A client of the test server acting as `caller`. */
export function api(server: Pick<TestServer, 'url'>, caller?: Caller, headers?: Record<string, string>): ApiClient {
  const options: Parameters<typeof createApiClient>[0] = { baseUrl: server.url, headers };
  if (caller && 'token' in caller) options.token = caller.token;
  else if (caller && 'key' in caller) options.apiKey = caller.key;
  return createApiClient(options);
}

/** What every openapi-fetch call answers. */
interface Answer<D, E> {
  data?: D;
  error?: E;
  response: Response;
}

/** The answer's body, after asserting the call succeeded (with `status`, when given). */
export function ok<D, E>(answer: Answer<D, E>, status?: number): D {
  const { response } = answer;
  const detail = `${response.url}: ${response.status} ${JSON.stringify(answer.error ?? answer.data)}`;
  if (status !== undefined) assert.equal(response.status, status, detail);
  else assert.ok(response.ok, detail);
  return answer.data as D;
}

/** The error envelope, after asserting the call was refused with `status`. */
export function refused<D, E>(answer: Answer<D, E>, status: number): E & { error: { code: string; message: string; details?: Record<string, any> } } {
  const { response } = answer;
  assert.equal(response.status, status, `${response.url}: ${response.status} ${JSON.stringify(answer.error ?? answer.data)}`);
  return answer.error as E & { error: { code: string; message: string; details?: Record<string, any> } };
}
