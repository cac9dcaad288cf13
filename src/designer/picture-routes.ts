// The pictures mail clients and the gallery fetch without credentials: the social icons that
// compiled signatures link to, and each starter's thumbnail. Both are the same bytes for every
// caller and never change for a given release, so they are cached by clients for a day and
// revalidated by ETag; they take the public routes' buckets listed on each route.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../kernel/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { Throttle } from '../ratelimit/hook.ts';
import { SOCIAL_NETWORKS } from './design.ts';
import { isSocialNetwork, socialIconPng, starterThumbnailPng } from './pictures.ts';
import { STARTER_DESIGNS } from './starters.ts';

const png = {
  description: 'A PNG image',
  content: { 'image/png': { schema: z.string().meta({ format: 'binary', contentMediaType: 'image/png' }) } },
};

const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;

export function pictureRoutes(deps: { throttle: Throttle }): FastifyPluginAsyncZod {
  return async (app) => {
    const send = (request: { headers: Record<string, unknown> }, reply: import('fastify').FastifyReply, bytes: Buffer) => {
      const etag = etagOf(bytes);
      reply.header('cache-control', 'public, max-age=86400').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return reply.type('image/png').send(bytes);
    };

    app.get(
      '/v1/social/:file',
      {
        onRequest: deps.throttle,
        schema: {
          operationId: 'getSocialIcon',
          summary: 'A social network icon that compiled signatures show (no auth)',
          description: `A 40×40 PNG, shown at 20×20. Networks: ${SOCIAL_NETWORKS.join(', ')}.`,
          tags: ['designer'],
          params: z.object({
            file: z
              .string()
              .max(40)
              .regex(/^[\w.-]+$/, 'a file name such as linkedin.png')
              .meta({ example: 'linkedin.png' }),
          }),
          response: { 200: png, 304: z.null().describe('not modified: the If-None-Match named this ETag'), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const network = request.params.file.replace(/\.png$/, '');
        if (!request.params.file.endsWith('.png') || !isSocialNetwork(network)) throw new AppError('NOT_FOUND', 'No such icon.');
        return send(request, reply, await socialIconPng(network));
      },
    );

    app.get(
      '/v1/starters/:starterId/thumbnail.png',
      {
        onRequest: deps.throttle,
        schema: {
          operationId: 'getStarterThumbnail',
          summary: "A starter design's picture for the gallery (no auth)",
          tags: ['designer'],
          params: z.object({
            starterId: z
              .string()
              .max(60)
              .regex(/^[\w-]+$/, 'a starter id such as classic'),
          }),
          response: { 200: png, 304: z.null().describe('not modified: the If-None-Match named this ETag'), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const starter = STARTER_DESIGNS.find((s) => s.starterId === request.params.starterId);
        if (!starter) throw new AppError('NOT_FOUND', 'No such starter.');
        return send(request, reply, await starterThumbnailPng(starter.starterId, starter.design));
      },
    );
  };
}
