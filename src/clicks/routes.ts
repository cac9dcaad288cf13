// `GET /v1/c/{token}`: a tracked link. 302 to the destination the token names (its UTM parameters
// already in it), the click recorded; `HEAD`, and `GET` with `preview=true` (a link followed from
// the dashboard's look at a signature), answer the same and record nothing. A token that is
// not ours is 404. Public: the per-address bucket, then the click route's stage-wide one.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, text } from '../http/schemas.ts';
import { notFound } from '../kernel/errors.ts';
import type { Throttle } from '../ratelimit/hook.ts';
import type { ClickService } from './service.ts';
import { MAX_TOKEN_CHARS } from './token.ts';

export function clickRoutes(deps: { throttle: Throttle; clicks: ClickService }): FastifyPluginAsyncZod {
  const { clicks } = deps;
  return async (app) => {
    const route = (method: 'GET' | 'HEAD', operationId: string, summary: string) =>
      app.route({
        method,
        // A wildcard, not `:token`: a token carries its destination, longer than the router's 100
        // characters per parameter (src/http/error-handler.ts's frameworkErrors).
        url: '/v1/c/*',
        onRequest: deps.throttle,
        schema: {
          operationId,
          summary,
          description:
            "GET records the click (clicks from known mail-security scanners, and a second distinct link of the same signature from one address within 10 s, are kept marked as suspected bots); HEAD, and GET with preview=true (the dashboard's previews), answer the same and record nothing. A token this service did not sign is 404.",
          tags: ['campaigns'],
          params: z.object({
            // Anything not signed here, whatever its characters or length, is the 404 below (the
            // contract); the bound is only the request line's own (Node's 16 KB).
            '*': text().max(16_384).describe(`the token (at most ${MAX_TOKEN_CHARS} characters)`),
          }),
          querystring: z.object({
            preview: z
              .enum(['true', 'false'])
              .optional()
              .describe("`true`: followed from the dashboard's look at a signature (its previews add it): the same answer, no click recorded"),
          }),
          response: {
            302: z.null().describe('Location: the destination'),
            ...errorResponses('NOT_FOUND'),
          },
        },
        handler: async (request, reply) => {
          // Back-pressure: with the clicks held in memory at their bound, a click waits for room.
          const record = method === 'GET' && request.query.preview !== 'true';
          const room = record ? clicks.room() : undefined;
          if (room) await room;
          const destination = clicks.follow(request.params['*'], { address: request.ip, userAgent: request.headers['user-agent'] }, record);
          if (!destination) throw notFound('Link');
          return reply
            .code(302)
            .header('location', asciiLocation(destination))
            .header('cache-control', 'no-store')
            .header('referrer-policy', 'no-referrer')
            .send(null);
        },
      });
    // HEAD first: a GET declared first would bring Fastify's own HEAD, which runs the GET handler (and records).
    route('HEAD', 'checkTrackedLink', 'A tracked link, checked (no auth): the same answer, nothing recorded');
    route('GET', 'followTrackedLink', 'A tracked link of a signature (no auth): 302 to its destination, the click recorded');
  };
}

/**
 * The destination as a Location header can carry it: every character outside printable ASCII
 * percent-encoded as UTF-8 (RFC 3986), the rest exactly as signed. A link with `€` or `é` in it
 * is a valid link to save, and Node refuses such characters in a header (a 500 before this).
 */
export function asciiLocation(destination: string): string {
  return destination.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}
