// The API client: openapi-fetch typed by client/schema.ts, which openapi-typescript generates
// from the committed OpenAPI document (docs/openapi.json) at `npm install` and `npm run openapi`.
// The HTTP tests and the web apps call the API through it, so a route that drifts from the
// document fails the type check. Type-only imports and plain functions: Node runs this file by
// stripping types, and browsers get it through Vite.
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type ApiError = Schemas['Error'];
export type Org = Schemas['Org'];
export type User = Schemas['User'];
export type Template = Schemas['Template'];
export type SavedTemplate = Schemas['SavedTemplate'];
export type ApiKey = Schemas['ApiKey'];
export type MintedApiKey = Schemas['MintedApiKey'];
export type AuditEntry = Schemas['AuditEntry'];
export type PlanStatus = Schemas['PlanStatus'];
export type RenderedSignature = Schemas['RenderedSignature'];

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** Where the API answers, e.g. `https://signatures.example.com` (the document's paths start with `/v1/`). */
  baseUrl: string;
  /** An ID token (sent as `Authorization: Bearer …`). */
  token?: string;
  /** An org API key (sent as `X-Api-Key`). */
  apiKey?: string;
  /** Headers sent with every request (e.g. `X-Correlation-Id`). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return createClient<paths>({ baseUrl: options.baseUrl, headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
