// The OpenAPI document (served at /v1/openapi.json, committed as docs/openapi.json): how
// @fastify/swagger turns the routes' zod schemas into it, and what the routes cannot say through
// their schemas: which credentials each operation takes (from its guard), the headers every answer
// carries, and examples. `npm run openapi` (tools/openapi.ts) writes the committed copy.
import type { SwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VERSION_REQUIRED } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers an `ETag` (withEtag); a PATCH also takes `If-Match`. For the OpenAPI document. */
    etag?: boolean;
  }
}

/** Which credentials a guard hook requires; set on the hooks `guards.org()` and `guards.staff()` return. */
export const GUARD = Symbol('guard');
export type GuardKind = 'org' | 'staff';

/** Org routes take an ID token or an API key (either header); staff routes a staff ID token only. */
const SECURITY: Record<GuardKind, Record<string, string[]>[]> = {
  org: [{ bearer: [] }, { apiKey: [] }],
  staff: [{ bearer: [] }],
};

function guardOf(onRequest: unknown): GuardKind | undefined {
  for (const hook of [onRequest].flat()) {
    const kind = (hook as { [GUARD]?: GuardKind } | undefined)?.[GUARD];
    if (kind) return kind;
  }
  return undefined;
}

type Json = Record<string, any>;

const HEADERS: Json = {
  CorrelationId: {
    description: "The id of this request in the service's logs (the `X-Correlation-Id` the client sent, when it was a valid one).",
    schema: { type: 'string' },
    example: '3f1c6a52-9b7e-4d2a-8c1e-5b0f7e2d9a41',
  },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 }, example: 30 },
  ETag: {
    description: 'The version of the resource as an entity tag; send it back as `If-Match` on a write.',
    schema: { type: 'string' },
    example: '"3"',
  },
};

const IF_MATCH: Json = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` you read: the write is refused with 412 when the resource has changed since.',
  schema: { type: 'string' },
  example: '"3"',
};

const CORRELATION_ID: Json = {
  name: 'X-Correlation-Id',
  in: 'header',
  required: false,
  description:
    'Your id for this request: printable ASCII without spaces, at most 128 characters. It is echoed back, logged and written to the audit trail; a missing or unusable one is replaced by a new UUID.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
  example: 'crm-sync-2026-01-12-0042',
};

export function openApiOptions(baseUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Signature Service API',
        version: '1.0.0',
        description: 'Multi-tenant API for managing and rendering email signatures. Every error answers `{error: {code, message, details?, correlationId}}`.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An ID token of the identity provider, or an API key (`svc_…`).' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key of the org (`svc_…`).' },
          addinKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Addin-Key',
            description: "An org's Outlook add-in key (`oak_…`), only for `GET /v1/addin/signature`.",
          },
        },
      },
    },
    transform: (input) => {
      const result = jsonSchemaTransform(input);
      const route = input.route as { onRequest?: unknown; config?: { etag?: boolean } };
      if (!result.schema || result.schema.hide) return result;
      const guard = guardOf(route.onRequest);
      // Carried to finish() as an operation extension, which removes it.
      // @fastify/swagger marks every request body required; a body the route's schema accepts
      // absent (e.g. render's `{templateId}`) is optional.
      const body = (input.schema as { body?: unknown } | undefined)?.body;
      const optionalBody = body instanceof z.ZodType && body.safeParse(undefined).success;
      result.schema = {
        ...result.schema,
        ...(guard ? { security: SECURITY[guard] } : {}),
        ...(route.config?.etag ? { 'x-etag': true } : {}),
        ...(optionalBody ? { 'x-optional-body': true } : {}),
      };
      return result;
    },
    transformObject: (input) => finish(jsonSchemaTransformObject(input) as Json),
  };
}

/** What each status means, for the responses a route's schema gives no description. */
const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No content',
  '400': 'The request is not valid: `details.field` names what (BAD_REQUEST)',
  '401': 'No credentials, or not valid ones (UNAUTHORIZED)',
  '402': "The org's grace period has ended: writes are refused until it pays (PAYMENT_REQUIRED)",
  '403': 'The credentials do not allow this, or not on this org (FORBIDDEN)',
  '404': 'No such resource in this org (NOT_FOUND)',
  '409': 'The `version` sent is not the current one, or the value is taken (CONFLICT)',
  '412': 'The `If-Match` sent is not the current `ETag` (PRECONDITION_FAILED)',
  '413': 'The request or the rendered output is too large (PAYLOAD_TOO_LARGE)',
  '429': 'Rate limit exceeded: retry after `Retry-After` seconds (TOO_MANY_REQUESTS)',
  '500': 'An unexpected error; the correlation id finds it in the logs (INTERNAL_ERROR)',
  '503': 'A dependency is unavailable: retry after `Retry-After` seconds (SERVICE_UNAVAILABLE)',
};

/** The error envelope each status answers, as the response's example. */
const ERROR_EXAMPLES: Record<string, [string, string, Json?]> = {
  '400': ['BAD_REQUEST', 'body.email: Invalid email address', { field: 'body.email', issues: [{ field: 'body.email', message: 'Invalid email address' }] }],
  '401': ['UNAUTHORIZED', 'Missing or invalid credentials.'],
  '402': [
    'PAYMENT_REQUIRED',
    'The subscription is past_due and its grace period ended at 2026-01-19T14:05:00.000Z: writes are blocked until the subscription is paid. Reads still work; see GET /v1/orgs/{orgId}/plan-status.',
    { blockedBy: 'grace_expired', gracePeriodEndsAt: '2026-01-19T14:05:00.000Z' },
  ],
  '403': ['FORBIDDEN', 'This action needs the admin role.'],
  '404': ['NOT_FOUND', 'User not found.'],
  '409': ['CONFLICT', 'User has changed: version 2 is not the current version.', { field: 'version', currentVersion: 3 }],
  '412': ['PRECONDITION_FAILED', 'If-Match does not match the current user.', { currentVersion: 3 }],
  '413': ['PAYLOAD_TOO_LARGE', 'The rendered signature is 41210 bytes, over the limit of 30720 bytes: shrink the template.'],
  '429': ['TOO_MANY_REQUESTS', 'Rate limit exceeded: retry in 30 seconds.'],
  '500': ['INTERNAL_ERROR', 'An unexpected error occurred. Quote the correlation id when reporting it.'],
  '503': ['SERVICE_UNAVAILABLE', 'The database is unreachable; retry in 5 seconds.', { retryAfterS: 5 }],
};

/** What a path parameter names, as the service's NOT_FOUND messages say it. */
const RESOURCE: Record<string, string> = {
  orgId: 'Organisation',
  userId: 'User',
  templateId: 'Template',
  keyId: 'API key',
  imageId: 'Image',
  jobId: 'Job',
  eventId: 'Event',
  domain: 'Domain',
  endpointId: 'Webhook endpoint',
  deliveryId: 'Delivery',
  campaignId: 'Campaign',
};

/** The 400 and 404 examples follow the operation: its body or parameters, the resource its path names. */
function errorExample(status: string, route: string, op: Json, components: Json): Json | undefined {
  const known = ERROR_EXAMPLES[status];
  if (!known) return undefined;
  let [code, message, details] = known;
  const params = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const last = params.at(-1);
  if (status === '400' && !op.requestBody) {
    // Without a body: a malformed path id (orgId is checked by authorization first: 403).
    // A domain in the path is looked up as it is (an unknown one is a 404), never malformed.
    const id = params.filter((p) => p !== 'orgId' && p !== 'domain').at(-1);
    const query = (op.parameters as Json[] | undefined)?.find((p) => p.in === 'query')?.name as string | undefined;
    if (id || query) {
      const field = id ? `params.${id}` : `query.${query}`;
      const why = id ? 'must be a UUID' : query === 'limit' ? 'Too small: expected number to be >=1' : 'is invalid';
      message = `${field}: ${why}`;
      details = { field, issues: [{ field, message: why }] };
    } else {
      message = 'The URL is not valid: a path segment cannot be decoded.';
      details = { field: 'params' };
    }
  }
  if (status === '400' && op.requestBody) {
    // With a body: its first required field missing (what a client forgets first).
    let schema = op.requestBody.content?.['application/json']?.schema as Json | undefined;
    if (schema?.$ref) schema = components.schemas?.[String(schema.$ref).split('/').pop() as string];
    const name = (schema?.required as string[] | undefined)?.[0];
    const property = name ? (schema?.properties?.[name] as Json | undefined) : undefined;
    // zod's messages for an absent field, as the error handler answers them.
    const why =
      name === 'version'
        ? VERSION_REQUIRED
        : property?.format === 'uuid'
          ? 'must be a UUID'
          : typeof property?.type === 'string'
            ? `Invalid input: expected ${property.type === 'integer' ? 'number' : property.type}, received undefined`
            : undefined;
    const field = why ? `body.${name}` : 'body';
    message = `${field}: ${why ?? 'Invalid input'}`;
    details = { field, issues: [{ field, message: why ?? 'Invalid input' }] };
  }
  if (status === '404' && last && RESOURCE[last]) message = `${RESOURCE[last]} not found.`;
  // The throttling layer's 429 carries no correlationId in the body (docs/api.md, "Rate limits").
  const correlation = status === '429' ? {} : { correlationId: '3f1c6a52-9b7e-4d2a-8c1e-5b0f7e2d9a41' };
  return { error: { code, message, ...(details ? { details } : {}), ...correlation } };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Headers, `If-Match`, and the response examples the schemas cannot carry, added to every operation. */
function finish(doc: Json): Json {
  doc.components.headers = HEADERS;
  doc.components.parameters = { IfMatch: IF_MATCH, CorrelationId: CORRELATION_ID };
  for (const [route, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const etag = op['x-etag'] === true;
      delete op['x-etag'];
      if (op['x-optional-body'] === true && op.requestBody) op.requestBody.required = false;
      delete op['x-optional-body'];
      const extra = [{ $ref: '#/components/parameters/CorrelationId' }];
      if (etag && (method === 'patch' || method === 'put')) extra.push({ $ref: '#/components/parameters/IfMatch' });
      op.parameters = [...(op.parameters ?? []), ...extra];
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Json][]) {
        if (!response.description || response.description === 'Default Response') response.description = STATUS_TEXT[status] ?? status;
        const json = response.content?.['application/json'];
        if (json?.schema?.$ref === '#/components/schemas/Error' && !json.example) json.example = errorExample(status, route, op, doc.components);
        const headers: Json = { 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } };
        if (status === '429' || status === '503') headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
        if (etag && /^2/.test(status)) headers.ETag = { $ref: '#/components/headers/ETag' };
        response.headers = { ...response.headers, ...headers };
      }
    }
  }
  pruneUnreferenced(doc);
  dropLoneInputSuffix(doc);
  // By name: zod's registry lists schemas in the order their modules were first imported, which
  // differs between the service started by the CLI (src/cli/main.ts), tools/openapi.ts and a test
  // process that imported the CLI first; the served document must not depend on it.
  doc.components.schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return doc;
}

/** `XInput` is named `X` when only its input form is in the document (the webhook's event). */
function dropLoneInputSuffix(doc: Json): void {
  const schemas: Json = doc.components.schemas ?? {};
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const plain = name.replace(/Input$/, '');
    if (plain !== name && !(plain in schemas)) renames.set(`#/components/schemas/${name}`, `#/components/schemas/${plain}`);
  }
  if (renames.size === 0) return;
  const rewrite = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) rewrite(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && renames.has(value)) (node as Json).$ref = renames.get(value);
      else rewrite(value);
    }
  };
  rewrite(doc.paths);
  rewrite(schemas);
  doc.components.schemas = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [renames.get(`#/components/schemas/${name}`)?.split('/').pop() ?? name, schema]),
  );
}

/**
 * fastify-type-provider-zod writes every registered schema twice, as read (`User`) and as written
 * (`UserInput`); only those an operation refers to stay.
 */
function pruneUnreferenced(doc: Json): void {
  const schemas: Json = doc.components.schemas ?? {};
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
