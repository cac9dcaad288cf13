// Shapes shared by many routes: the error envelope, list pages, path parameters.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_CODES, codeToStatus, type ErrorCode } from '../kernel/errors.ts';
import { MAX_VERSION } from '../store/conditional.ts';
import { storableText } from '../lib/text.ts';
import { FIRST_DAY } from '../lib/utc-day.ts';
import { EXAMPLE } from './examples.ts';

/** The instance a route plugin registers its routes on (the zod type provider's): parts of a plugin take it. */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

export const errorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
      correlationId: z.string().optional().describe("absent only from the throttling layer's 429"),
    }),
  })
  .meta({
    id: 'Error',
    examples: [{ error: { code: 'NOT_FOUND', message: 'User not found.', correlationId: EXAMPLE.correlationId } }],
  });

/** Response schemas for the error statuses a route can answer, for the OpenAPI document. */
export function errorResponses(...codes: ErrorCode[]) {
  // Any route may meet an unavailable database: 503 with Retry-After.
  const all: ErrorCode[] = ['BAD_REQUEST', 'UNAUTHORIZED', 'TOO_MANY_REQUESTS', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', ...codes];
  return Object.fromEntries(all.map((c) => [codeToStatus(c), errorEnvelope])) as Record<number, typeof errorEnvelope>;
}

export const uuid = z.uuid({ message: 'must be a UUID' });

/**
 * Every string a client sends (body, query or path) starts here. PostgreSQL's `text` cannot hold
 * U+0000 (the driver's error would be a 500), and an unpaired surrogate cannot be encoded as UTF-8
 * (it would be stored as U+FFFD, not as sent); both are refused as 400 before anything runs. Chain
 * `.trim()`, `.min()`, `.max()` after it: the check sees the string as it was sent.
 */
export const text = storableText;

export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('page size, 1 to 200'),
  cursor: text().max(200).optional().describe('the `nextCursor` of the previous page'),
});

/**
 * A page of a list; its example is a page of the item's example. One schema per item, however
 * often routes are registered, so its serializer is compiled once (src/http/serializer.ts).
 */
export function page<T extends z.ZodType>(item: T) {
  const known = pages.get(item) as ReturnType<typeof makePage<T>> | undefined;
  if (known) return known;
  const made = makePage(item);
  pages.set(item, made);
  return made;
}

const pages = new WeakMap<z.ZodType, z.ZodType>();

function makePage<T extends z.ZodType>(item: T) {
  const itemExample = (z.globalRegistry.get(item)?.examples as unknown[] | undefined)?.[0];
  return z
    .object({ items: z.array(item), nextCursor: z.string().nullable() })
    .meta({ examples: [{ items: itemExample === undefined ? [] : [itemExample], nextCursor: 'eyJrIjoiMjAyNi0wMS0wNSJ9' }] });
}

/** Presenters turn dates into ISO-8601 UTC strings; schemas describe those strings. */
export const timestamp = z.iso.datetime();
/** A date and time a client sends: PostgreSQL has no year 0, so years 0001 to 9999 (year 0 was a 500). */
export const inputTimestamp = timestamp.refine((v) => !v.startsWith('0000'), { message: 'must be a date and time of the years 0001 to 9999' });
/** A UTC day a client sends, YYYY-MM-DD, from FIRST_DAY to 9999-12-31. */
export const inputDay = z.iso.date().refine((d) => d >= FIRST_DAY, { message: `must be a date from ${FIRST_DAY} to 9999-12-31` });
export const nullableTimestamp = timestamp.nullable();
export const iso = (d: Date) => d.toISOString();
export const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/** The `version` every PATCH must send (optimistic concurrency: docs/guide.md, "Organisations"). */
export const VERSION_REQUIRED = 'is required: send the version you read';
// "is required" only when it is absent: a 0, a -1 or a 1.5 keeps zod's own message (the number it is not).
export const versionField = z
  .number({ error: (issue) => (issue.input === undefined ? VERSION_REQUIRED : undefined) })
  .int()
  .min(1)
  .max(MAX_VERSION);

export const orgParams = z.object({ orgId: uuid });
export const userParams = z.object({ orgId: uuid, userId: uuid });
