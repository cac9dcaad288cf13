// A user's photo (docs/api.md, "Photos"): the user themself (when the org lets members change
// their photo) or an admin uploads the image bytes; they are stored as one of the org's images,
// under the image rules (type, 1 MB, 2,000 px a side), and become the user's `photoImageId`.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { accessOf, writeContext, type BillingHooks, type Guards } from '../http/guard.ts';
import { badRequest } from '../kernel/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { parseIfMatch, withEtag } from '../http/concurrency.ts';
import { z } from 'zod';
import { IMAGE_MAX_BYTES, IMAGE_TYPES, type ImageService } from '../images/module.ts';
import type { UserService } from './service.ts';
import { userParams, userSchema } from './schemas.ts';

// The body is the image itself: a Buffer from the parser below (as for POST …/images).
const imageBody = z
  .custom<Buffer>((v) => Buffer.isBuffer(v), { message: 'must be the image bytes, sent as image/png, image/jpeg or image/gif' })
  .meta({ type: 'string', format: 'binary' });

export function photoRoutes(deps: { guards: Guards; billing: BillingHooks; users: UserService; images: ImageService }): FastifyPluginAsyncZod {
  const { guards, billing, users, images } = deps;
  const ifMatchOf = (header: string | string[] | undefined) => parseIfMatch(typeof header === 'string' ? header : undefined);
  return async (app) => {
    // Raw bytes for the image types, in this plugin's scope only (as the images routes take them).
    app.addContentTypeParser([...IMAGE_TYPES], { parseAs: 'buffer', bodyLimit: IMAGE_MAX_BYTES }, (_request, body, done) => done(null, body));

    app.post(
      '/v1/orgs/:orgId/users/:userId/photo',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        // Who may change this photo is settled before the body is read: a refused caller (or an
        // id of another org's user) learns nothing of what a valid upload would look like.
        preValidation: async (request) => {
          const params = userParams.safeParse(request.params);
          // Malformed ids are left to validation, which answers 400 naming them.
          if (params.success) await users.checkPhotoEdit(accessOf(request), params.data.orgId, params.data.userId);
        },
        bodyLimit: IMAGE_MAX_BYTES,
        config: { etag: true },
        schema: {
          operationId: 'uploadUserPhoto',
          summary: "Upload a user's photo (the user themself, or an admin): PNG, JPEG or GIF, at most 1 MB and 2,000 px a side",
          description:
            "The body is the image bytes with the matching `Content-Type`. The image is stored as one of the org's images and becomes the user's `photoImageId` (signatures show it as `user.photo_url`); the photo it replaces, when uploaded here too, is deleted unless something else shows it. A member may change their own photo only while the org's `selfServiceFields` name `photoImageId`. `If-Match`, when sent, must name the user's current version.",
          tags: ['users'],
          params: userParams,
          consumes: [...IMAGE_TYPES],
          body: imageBody,
          response: {
            200: userSchema,
            ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED', 'PAYLOAD_TOO_LARGE'),
          },
        },
      },
      async (request, reply) => {
        const declared = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (!(IMAGE_TYPES as readonly string[]).includes(declared)) {
          throw badRequest('Send the image bytes with Content-Type image/png, image/jpeg or image/gif.', { field: 'content-type' });
        }
        const access = accessOf(request);
        const ctx = writeContext(request);
        // Stored as a photo: deleted once it is replaced and nothing else shows it.
        const image = await images.upload(ctx, declared, request.body, 'photo');
        const user = await users.setPhoto(access, ctx, request.params.userId, image.imageId, ifMatchOf(request.headers['if-match']));
        return withEtag(reply, user);
      },
    );

    app.delete(
      '/v1/orgs/:orgId/users/:userId/photo',
      {
        onRequest: [guards.org('user.update'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'deleteUserPhoto',
          summary: "Remove a user's photo (the user themself, or an admin)",
          description:
            "Clears `photoImageId` and answers the user. A photo uploaded through `POST …/photo` (or set by a directory sync) is deleted with it unless something else shows it (another user's photo, the logo, a template, a campaign); an image uploaded through `POST …/images` stays.",
          tags: ['users'],
          params: userParams,
          response: { 200: userSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const user = await users.setPhoto(accessOf(request), writeContext(request), request.params.userId, null, ifMatchOf(request.headers['if-match']));
        return withEtag(reply, user);
      },
    );
  };
}
