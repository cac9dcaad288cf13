// `GET /v1/p/{userId}`: the open-tracking pixel. Every well-formed id gets the same 43-byte GIF,
// known or not, so no mail shows a broken image and nobody can probe which users exist.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OpenCounter } from './opens.ts';
import { isProxy } from './opens.ts';

// GIF89a, 1×1, one transparent pixel (graphic control extension): the classic 43 bytes.
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function pixelRoutes(deps: { opens: OpenCounter; clock: () => Date }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/p/:userId',
      {
        schema: {
          summary: 'Open-tracking pixel (no auth; its own, stricter rate limit)',
          tags: ['render'],
          description: 'Answers a 1×1 transparent GIF (image/gif) for any id.',
          params: z.object({ userId: z.string().max(100) }),
        },
      },
      async (request, reply) => {
        const { userId } = request.params;
        // Malformed ids get the image too, and are not counted; unknown users are dropped at write time.
        if (UUID.test(userId)) deps.opens.record(userId.toLowerCase(), isProxy(request.headers['user-agent']), deps.clock());
        return reply
          .header('content-type', 'image/gif')
          .header('cache-control', 'no-store, no-cache, must-revalidate, max-age=0')
          .header('pragma', 'no-cache')
          .header('expires', '0')
          .send(PIXEL);
      },
    );
  };
}
