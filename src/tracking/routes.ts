// `GET /v1/p/{userId}`, the open-tracking pixel, and `GET /v1/orgs/{orgId}/opens`, its counts.
// Every well-formed pixel id gets the same 43-byte GIF, known or not, so no mail shows a broken
// image and nobody can probe which users exist.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Guards } from '../http/guard.ts';
import { errorEnvelope, errorResponses, inputDay, orgParams, page, text, uuid } from '../http/schemas.ts';
import type { Throttle } from '../ratelimit/hook.ts';
import type { TrackingService } from './service.ts';
import { isUuid } from '../kernel/ids.ts';

// GIF89a, 1×1, one transparent pixel (graphic control extension): the classic 43 bytes.
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
// The image as a latin1 string and its headers, built once: the response is written straight to
// the socket (below), where a string body goes out in one write with the headers.
const PIXEL_LATIN1 = PIXEL.toString('latin1');
const PIXEL_HEADERS = {
  'content-type': 'image/gif',
  'content-length': String(PIXEL.length),
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
};

const day = z.iso.date();

/** The pixel, outside the authenticated scope: no credentials, its own bucket listed on the route. */
export function pixelRoutes(deps: {
  throttle: Throttle;
  tracking: TrackingService;
  campaignOpen?: (c: string, userId: string) => void;
}): FastifyPluginAsyncZod {
  const { tracking } = deps;
  return async (app) => {
    app.get(
      '/v1/p/:userId',
      {
        onRequest: deps.throttle,
        schema: {
          operationId: 'getTrackingPixel',
          summary: 'Open-tracking pixel (no auth; its own, stricter rate limit)',
          tags: ['render'],
          description: 'Answers a 1×1 transparent GIF (image/gif) for any id.',
          params: z.object({ userId: z.string().max(100) }),
          querystring: z.object({
            c: text().max(500).optional().describe('the campaign whose banner the signature showed (signed; an open counts as its impression)'),
          }),
          response: {
            200: {
              description: 'The same 43-byte transparent GIF for every id, never cached',
              content: { 'image/gif': { schema: z.string().meta({ format: 'binary', contentMediaType: 'image/gif' }) } },
            },
            429: errorEnvelope,
          },
        },
      },
      async (request, reply) => {
        tracking.recordOpen(request.params.userId, request.headers['user-agent']);
        // An open counts for a campaign where it counts as an open: a pixel of someone (a user id),
        // the one its `c` was signed for.
        if (request.query.c && isUuid(request.params.userId)) deps.campaignOpen?.(request.query.c, request.params.userId);
        // The hottest public route answers the same 43 bytes every time, so it skips Fastify's send
        // pipeline (content-type parsing, serializer, onSend hooks) and Node's separate write of a
        // Buffer body: about a sixth of its cost in the benchmarks (BENCHMARKS.md). The headers set by the
        // hooks (correlation id, rate limit) are carried over. The onResponse hooks (the request's log
        // line, the metrics) still run when the answer is finished: Fastify runs them on the
        // response's `finish`, hijacked or not (a line written here as well was a second, identical one).
        reply.hijack();
        reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...PIXEL_HEADERS });
        reply.raw.end(PIXEL_LATIN1, 'latin1');
      },
    );
  };
}

/** The daily counts, an org route (registered in the authenticated scope). */
export function opensRoutes(deps: { guards: Guards; tracking: TrackingService }): FastifyPluginAsyncZod {
  const { guards, tracking } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/opens',
      {
        onRequest: guards.org('opens.read'),
        schema: {
          operationId: 'listDailyOpens',
          summary: 'Daily open counts of the tracking pixel (real opens, and proxy or prefetch fetches) (admin)',
          tags: ['render'],
          params: orgParams,
          querystring: z.object({
            from: inputDay.optional().describe('first day (UTC), default 30 days ago'),
            to: inputDay.optional().describe('last day (UTC), default today'),
            userId: uuid.optional(),
          }),
          response: {
            200: page(
              z.object({ day, real: z.number().int(), proxied: z.number().int() }).meta({ examples: [{ day: '2026-01-12', real: 41, proxied: 17 }] }),
            ).describe('every day of the range with opens; never more than one page'),
            ...errorResponses('FORBIDDEN'),
          },
        },
      },
      async (request) => ({ items: await tracking.daily(request.params.orgId, request.query), nextCursor: null }),
    );
  };
}
