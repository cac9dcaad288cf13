// `POST /v1/orgs/{orgId}/users/import`: a CSV file (text/csv) or a JSON array of the same fields.
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf, writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, orgParams, uuid } from '../http/schemas.ts';
import { AppError, ERROR_CODES, badRequest } from '../kernel/errors.ts';
import { IMPORT_COLUMNS, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, readCsv, tooManyRows, type ImportRow, type UserImport } from './import.ts';
import { useBoundedJsonParser } from '../http/json-body.ts';
import { leaveBodyUnread } from '../http/lingering-close.ts';
import { importRowSchema } from './schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

/** Each row checked on its own: a bad one becomes that row's refusal, naming the field. */
function validateRow(raw: unknown): ImportRow {
  if (raw instanceof AppError) return { ok: false, error: raw };
  const parsed = importRowSchema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'row';
  return { ok: false, error: badRequest(`${field}: ${issue.message}`, { field }) };
}

const importResultSchema = z
  .object({
    row: z.number().int().describe('1 for the first row after the header (or the first item of the array)'),
    status: z.enum(['created', 'updated', 'refused']),
    userId: uuid.nullable(),
    error: z.object({ code: z.enum(ERROR_CODES), message: z.string(), field: z.string().optional() }).nullable(),
  })
  .meta({ id: 'UserImportResult' });

export function userImportRoutes(deps: { guards: Guards; billing: BillingHooks; userImport: UserImport }): FastifyPluginAsyncZod {
  return async (app) => {
    // In this plugin's scope only: a CSV is read as it arrives, up to its first row past the
    // limit (./import.ts); a JSON array past the limit is refused before the body's schema walks it.
    app.addContentTypeParser('text/csv', async (request: FastifyRequest, payload: Readable) => {
      try {
        return await readCsv(payload);
      } catch (err) {
        leaveBodyUnread(request.raw);
        throw err;
      }
    });
    useBoundedJsonParser(app, {
      bodyLimit: IMPORT_MAX_BYTES,
      constructorAction: 'ignore',
      check: (value) => (Array.isArray(value) && value.length > IMPORT_MAX_ROWS ? tooManyRows(value.length) : undefined),
    });

    app.post(
      '/v1/orgs/:orgId/users/import',
      {
        onRequest: [deps.guards.org('user.create'), deps.billing.writeGate],
        bodyLimit: IMPORT_MAX_BYTES,
        schema: {
          operationId: 'importUsers',
          summary: 'Create or update users by email, from a CSV file or a JSON array (admin)',
          description: `A \`text/csv\` body whose first line is the header \`${IMPORT_COLUMNS.join(',')}\` (any order; \`email\` required), or a JSON array of objects with those fields. At most ${IMPORT_MAX_ROWS} rows and ${IMPORT_MAX_BYTES} bytes. Each row is created (an invited member unless \`role\` says otherwise) or updated, or refused with the reason; a refused row changes nothing and the others go on.`,
          tags: ['users'],
          params: orgParams,
          consumes: ['text/csv', 'application/json'],
          body: z
            .union([
              z.string().describe('the CSV file'),
              z
                .array(z.unknown())
                .describe(
                  `objects with the fields ${IMPORT_COLUMNS.join(', ')} (strings; \`email\` required; an empty or absent field keeps its value on update and takes its default on create), each checked on its own`,
                ),
            ])
            .meta({
              examples: [
                [
                  { email: 'ada@acme.example', name: 'Ada Lovelace', title: 'Engineer', department: 'Research' },
                  { email: 'grace@acme.example', role: 'admin' },
                ],
              ],
            }),
          response: {
            200: z.object({ results: z.array(importResultSchema) }).meta({
              examples: [
                {
                  results: [
                    { row: 1, status: 'created', userId: EXAMPLE.userId, error: null },
                    { row: 2, status: 'refused', userId: null, error: { code: 'BAD_REQUEST', message: 'email: Invalid email address', field: 'email' } },
                  ],
                },
              ],
            }),
            ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED', 'PAYLOAD_TOO_LARGE'),
          },
        },
      },
      async (request) => {
        // Both parsers above answer an array (a CSV's records keyed by its header); a JSON body
        // of another shape is refused here.
        const rows = request.body;
        if (!Array.isArray(rows)) throw badRequest('Send a CSV file as text/csv, or a JSON array of rows as application/json.', { field: 'body' });
        if (rows.length > IMPORT_MAX_ROWS) throw tooManyRows(rows.length);
        return { results: await deps.userImport.run(accessOf(request), writeContext(request), rows.map(validateRow)) };
      },
    );
  };
}
