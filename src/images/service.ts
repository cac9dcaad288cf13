// Images an org uploads for its templates (docs/api.md, "Images"): checked here (type, size,
// dimensions, magic bytes against the declared type), kept in the database, served by id to anyone.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { imagesRepo, type ImageMeta } from '../store/repositories/images.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { AppError, badRequest, notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import type { ImageContentType } from '../store/schema.ts';
import { readImageInfo, sniffType } from './dimensions.ts';
import type { CachedImage, Caches } from '../cache/namespaces.ts';
import { toImage, type Image } from './resource.ts';

export const IMAGE_TYPES: readonly ImageContentType[] = ['image/png', 'image/jpeg', 'image/gif'];
/** At most 1 MB and 2,000 px a side (docs/api.md, "Images"). */
export const IMAGE_MAX_BYTES = 1024 * 1024;
export const IMAGE_MAX_SIDE = 2000;

export function createImageService(deps: { db: Db; baseUrl: string; caches: Pick<Caches, 'images' | 'invalidate'> }) {
  const { db, caches } = deps;
  const urlOf = (imageId: string) => `${deps.baseUrl.replace(/\/$/, '')}/v1/images/${imageId}`;
  const present = (m: ImageMeta) => toImage(m, urlOf(m.id));
  return {

    async upload(ctx: WriteContext, declared: string, data: Uint8Array): Promise<Image> {
      if (data.byteLength === 0) throw badRequest('The body is empty: send the image bytes.', { field: 'body' });
      if (data.byteLength > IMAGE_MAX_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `An image may have at most ${IMAGE_MAX_BYTES} bytes.`, { details: { limitBytes: IMAGE_MAX_BYTES } });
      }
      const sniffed = sniffType(data);
      if (sniffed !== declared) {
        throw badRequest(
          sniffed
            ? `The bytes are ${sniffed}, not the ${declared} the Content-Type says.`
            : `The bytes are not ${declared} (nor any of PNG, JPEG, GIF).`,
          { field: 'content-type' },
        );
      }
      const info = readImageInfo(data);
      if (!info) throw badRequest(`The ${declared} header is malformed or cut short.`, { field: 'body' });
      if (info.width > IMAGE_MAX_SIDE || info.height > IMAGE_MAX_SIDE) {
        throw badRequest(`The image is ${info.width}×${info.height} px; at most ${IMAGE_MAX_SIDE} px a side.`, {
          field: 'body',
          width: info.width,
          height: info.height,
        });
      }
      const sha256 = createHash('sha256').update(data).digest('hex');
      const saved = await db.transaction().execute(async (tx) => {
        const row = await imagesRepo.insert(tx, {
          id: randomUUID(),
          org_id: ctx.orgId,
          content_type: info.contentType,
          width: info.width,
          height: info.height,
          bytes: data.byteLength,
          sha256,
          data,
        });
        await recordAudit(tx, ctx, { action: 'image.create', targetId: row.id, changes: ['contentType', 'height', 'width'] });
        return row;
      });
      return present(saved);
    },

    async list(orgId: string, page: PageRequest): Promise<Page<Image>> {
      const rows = await imagesRepo.list(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, present);
    },

    async remove(ctx: WriteContext, imageId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const deleted = await imagesRepo.softDelete(tx, ctx.orgId, imageId);
        if (!deleted) throw notFound('Image');
        await recordAudit(tx, ctx, { action: 'image.delete', targetId: imageId, changes: ['deletedAt'] });
      });
      caches.invalidate.imageDeleted(imageId);
    },

    /** The bytes of a live image, for anyone (mail clients fetch it); its ETag is the content's hash. */
    async content(imageId: string): Promise<CachedImage> {
      const cached = caches.images.get(imageId);
      if (cached) return cached;
      const row = await imagesRepo.content(db, imageId);
      if (!row) throw notFound('Image');
      const image = {
        contentType: row.content_type,
        etag: `"${row.sha256}"`,
        data: Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength),
      };
      caches.images.set(imageId, image);
      return image;
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
