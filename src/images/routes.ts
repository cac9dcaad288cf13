// Images: upload, list and delete in the org scope (admin to change, members to list), and the
// public `GET /v1/images/{imageId}` that mail clients fetch (outside the authenticated scope).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorEnvelope, errorResponses, listQuery, orgParams, page, timestamp, uuid } from '../http/schemas.ts';
import { badRequest } from '../kernel/errors.ts';
import { IMAGE_MAX_BYTES, IMAGE_TYPES, type ImageService } from './service.ts';
import { EXAMPLE } from '../http/examples.ts';
import type { Throttle } from '../ratelimit/hook.ts';

export const imageSchema = z
  .object({
    imageId: uuid,
    url: z.string().describe('where mail clients fetch it: put this in a template'),
    contentType: z.enum(['image/png', 'image/jpeg', 'image/gif']),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int(),
    createdAt: timestamp,
  })
  .meta({
    id: 'Image',
    examples: [
      {
        imageId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        url: 'http://localhost:3000/v1/images/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        contentType: 'image/png',
        width: 240,
        height: 80,
        bytes: 5120,
        createdAt: EXAMPLE.createdAt,
      },
    ],
  });

const imageParams = z.object({ orgId: uuid, imageId: uuid });

// The body is the image itself: a Buffer from the parsers below. A JSON body reaches the route as
// an object, and this schema refuses it with a 400 naming the body.
const imageBody = z
  .custom<Buffer>((v) => Buffer.isBuffer(v), { message: 'must be the image bytes, sent as image/png, image/jpeg or image/gif' })
  .meta({ type: 'string', format: 'binary' });

// An ETag is a quoted string; If-None-Match may list several, or `*`.
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch?.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === etag || tag === '*';
  });

/** A year: an image id always names the same bytes (a new upload is a new id), so caches may keep it. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function imageRoutes(deps: { guards: Guards; billing: BillingHooks; images: ImageService }): FastifyPluginAsyncZod {
  const { guards, billing, images } = deps;
  return async (app) => {
    // Raw bytes for the image types, in this plugin's scope only, up to the image limit (the 413
    // names it, not the 5 MB of other bodies).
    app.addContentTypeParser([...IMAGE_TYPES], { parseAs: 'buffer', bodyLimit: IMAGE_MAX_BYTES }, (_request, body, done) => done(null, body));

    app.post(
      '/v1/orgs/:orgId/images',
      {
        onRequest: [guards.org('image.write'), billing.writeGate],
        bodyLimit: IMAGE_MAX_BYTES,
        schema: {
          operationId: 'uploadImage',
          summary: 'Upload an image (admin): PNG, JPEG or GIF, at most 1 MB and 2,000 px a side',
          description:
            'The body is the image bytes, with the matching `Content-Type`; the bytes must be what the header says. Answers the `url` to put in templates.',
          tags: ['images'],
          params: orgParams,
          consumes: [...IMAGE_TYPES],
          body: imageBody,
          response: { 201: imageSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED', 'PAYLOAD_TOO_LARGE') },
        },
      },
      async (request, reply) => {
        const declared = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (!(IMAGE_TYPES as readonly string[]).includes(declared)) {
          throw badRequest('Send the image bytes with Content-Type image/png, image/jpeg or image/gif.', { field: 'content-type' });
        }
        const image = await images.upload(writeContext(request), declared, request.body);
        reply.code(201);
        return image;
      },
    );

    app.get(
      '/v1/orgs/:orgId/images',
      {
        onRequest: guards.org('image.read'),
        schema: {
          operationId: 'listImages',
          summary: "List the org's images, oldest first",
          tags: ['images'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(imageSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        return images.list(request.params.orgId, request.query);
      },
    );

    app.delete(
      '/v1/orgs/:orgId/images/:imageId',
      {
        onRequest: [guards.org('image.write'), billing.writeGate],
        schema: {
          operationId: 'deleteImage',
          summary: 'Delete an image (soft; admin). Its URL stops answering. 409 while anything shows it.',
          description:
            "Refused with 409 `CONFLICT` while the image is the org's logo, a user's photo, in a template (its html or design) or in a campaign's variants: `details.uses` names them (`orgLogo`, `users`, `templates`, `campaigns`), so that no signature shows a broken image. Change those first.",
          tags: ['images'],
          params: imageParams,
          response: { 204: z.null().describe('deleted'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await images.remove(writeContext(request), request.params.imageId);
        return reply.code(204).send(null);
      },
    );
  };
}

/** `GET /v1/images/{imageId}`: no credentials (mail clients fetch it), long-lived caching, ETag. */
export function publicImageRoutes(deps: { throttle: Throttle; images: ImageService }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/images/:imageId',
      {
        config: { etag: true },
        // The address's bucket of the public routes, then the assets' stage-wide one (DECISIONS wave 3).
        onRequest: deps.throttle,
        schema: {
          operationId: 'getImage',
          summary: 'An uploaded image (no auth: mail clients fetch it). `Cache-Control` for a year and an `ETag`; `If-None-Match` answers 304.',
          tags: ['images'],
          params: z.object({ imageId: uuid }),
          response: {
            200: {
              description: 'The image bytes, as uploaded',
              content: Object.fromEntries(IMAGE_TYPES.map((t) => [t, { schema: z.string().meta({ format: 'binary', contentMediaType: t }) }])),
            },
            304: z.null().describe('not modified: the If-None-Match named this ETag'),
            400: errorEnvelope,
            404: errorEnvelope,
            429: errorEnvelope,
          },
        },
      },
      async (request, reply) => {
        const image = await deps.images.content(request.params.imageId);
        reply.header('etag', image.etag).header('cache-control', CACHE_CONTROL).header('x-content-type-options', 'nosniff');
        if (matches(request.headers['if-none-match'], image.etag)) return reply.code(304).send(null);
        const body = await image.body();
        // A Buffer or a file's stream goes out as is (Fastify serializes neither); the typed reply
        // only knows the schemas.
        return reply
          .type(image.contentType)
          .header('content-length', image.bytes)
          .send(body as never);
      },
    );
  };
}
