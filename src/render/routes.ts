import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../auth/guard.ts';
import type { Db } from '../store/db.ts';
import { opensRepo } from '../store/repositories/opens.ts';
import { badRequest } from '../http/errors.ts';
import { errorResponses, orgParams, page, text, uuid } from '../http/schemas.ts';
import type { RenderService, Rendered } from './service.ts';
import { JsonMemo } from '../http/json-memo.ts';

const renderedSchema = z
  .object({
    userId: uuid,
    templateId: uuid.nullable(),
    html: z.string(),
    text: z.string(),
    bytes: z.number().int().describe('UTF-8 bytes of the HTML'),
    warnings: z.array(z.string()).describe("advice for mail clients, e.g. Gmail's 10,000-character limit"),
  })
  .meta({ id: 'RenderedSignature' });

const day = z.iso.date();
// ISO dates of years 1 to 9999: PostgreSQL has no year 0 (a 500 from the database otherwise).
const FIRST_DAY = '0001-01-01';
const queryDay = day.refine((d) => d >= FIRST_DAY, { message: `must be a date from ${FIRST_DAY} to 9999-12-31` });

export function renderRoutes(deps: { guards: Guards; render: RenderService; db: Db; clock: () => Date }): FastifyPluginAsyncZod {
  const { guards, render } = deps;
  // Rendered output is cached by versions (service.ts); its JSON text is kept beside it.
  const renderedJson = new JsonMemo(renderedSchema, (r: Rendered) => r);
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/render/:userId',
      {
        onRequest: guards.org('render', { write: true }),
        schema: {
          summary: "Render a user's signature",
          description: 'With the given template, or the org default. Output over RENDER_LIMIT_BYTES (30 KB) is 413.',
          tags: ['render'],
          params: z.object({ orgId: uuid, userId: uuid }),
          body: z.strictObject({ templateId: uuid.optional() }).nullish(),
          response: { 200: renderedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => renderedJson.send(reply, await render.render(request.params.orgId, request.params.userId, request.body?.templateId)),
    );

    app.post(
      '/v1/orgs/:orgId/templates/preview',
      {
        onRequest: guards.org('template.write', { write: true }),
        schema: {
          summary: 'Render an unsaved template for a user (the editor preview; admin)',
          tags: ['render'],
          params: orgParams,
          body: z.strictObject({ userId: uuid, html: text().max(100_000), text: text().max(100_000).default('') }),
          response: { 200: renderedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => render.preview(request.params.orgId, request.body.userId, request.body),
    );

    app.get(
      '/v1/orgs/:orgId/opens',
      {
        onRequest: guards.org('org.read'),
        schema: {
          summary: 'Daily open counts of the tracking pixel (real opens, and proxy or prefetch fetches)',
          tags: ['render'],
          params: orgParams,
          querystring: z.object({
            from: queryDay.optional().describe('first day (UTC), default 30 days ago'),
            to: queryDay.optional().describe('last day (UTC), default today'),
            userId: uuid.optional(),
          }),
          response: {
            200: page(z.object({ day, real: z.number().int(), proxied: z.number().int() })).describe('every day of the range with opens; never more than one page'),
            ...errorResponses('FORBIDDEN'),
          },
        },
      },
      async (request) => {
        const today = deps.clock().toISOString().slice(0, 10);
        const to = request.query.to ?? today;
        const from = request.query.from ?? maxDay(FIRST_DAY, new Date(Date.parse(to) - 29 * 86_400_000).toISOString().slice(0, 10));
        if (from > to) throw badRequest('query.from: must not be after `to`', { field: 'query.from' });
        if (Date.parse(to) - Date.parse(from) > 366 * 86_400_000) throw badRequest('query.from: at most 366 days at once', { field: 'query.from' });
        return { items: await opensRepo.daily(deps.db, request.params.orgId, { from, to, userId: request.query.userId }), nextCursor: null };
      },
    );
  };
}

// ISO dates of years 1 to 9999 compare as strings (toISOString writes year 0 as 0000).
const maxDay = (a: string, b: string) => (a > b ? a : b);
