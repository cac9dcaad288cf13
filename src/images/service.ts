// Images an org uploads for its templates (docs/api.md, "Images"): checked here (type, size,
// dimensions, every GIF frame, magic bytes against the declared type, the org's caps), served by id
// to anyone. The bytes are in the row on a PostgreSQL server (every
// instance serves them) and in files in the embedded store (./files.ts), whose database runs on
// the main thread.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Db } from '../store/db.ts';
import { imagesRepo, type ImageMeta, type ImageUses } from '../store/repositories/images.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { AppError, badRequest, conflict, notFound } from '../kernel/errors.ts';
import { recordAudit, type AuditContext } from '../audit/record.ts';
import type { ImageContentType, ImageOrigin } from '../store/schema.ts';
import { readImageInfo, sniffType, type ImageInfo } from './dimensions.ts';
import type { CachedImage, Caches } from '../cache/namespaces.ts';
import type { ImageFiles } from './files.ts';
import type { Logger } from '../log.ts';
import { toImage, type Image } from './resource.ts';

export const IMAGE_TYPES: readonly ImageContentType[] = ['image/png', 'image/jpeg', 'image/gif'];
/** At most 1 MB and 2,000 px a side (docs/api.md, "Images"). */
export const IMAGE_MAX_BYTES = 1024 * 1024;
export const IMAGE_MAX_SIDE = 2000;
/** A fetch reads an image file this much at a time. */
const PART_BYTES = 256 * 1024;
/**
 * …and its row on PostgreSQL this much per query: the driver hands bytea over as hex text, twice
 * the bytes, and a string past V8's large-object size (128 KB) is allocated where only a full
 * collection frees it. Under the service's tight heap flags, 1 MB images read whole, or in parts
 * of 256 KB, spent most of the event loop's time in those collections.
 */
const DATABASE_PART_BYTES = 48 * 1024;
/** An org keeps at most this many live images (docs/api.md, "Images"). */
export const IMAGES_MAX_PER_ORG = 500;

/** Who stores or deletes an image: a request (its principal), or a directory sync (its actor). */
export type ImageWriter = AuditContext & { orgId: string };

/** What the public route answers: `body()` reads the bytes (not needed for a 304). */
export interface ImageContent extends Omit<CachedImage, 'data'> {
  body(): Promise<Buffer | Readable>;
}

/** The image's own bytes, checked: the type they are, the declared one, the size of every side and frame. */
function check(declared: string, data: Uint8Array): ImageInfo {
  if (data.byteLength === 0) throw badRequest('The body is empty: send the image bytes.', { field: 'body' });
  if (data.byteLength > IMAGE_MAX_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `An image may have at most ${IMAGE_MAX_BYTES} bytes.`, { details: { limitBytes: IMAGE_MAX_BYTES } });
  }
  const sniffed = sniffType(data);
  if (sniffed !== declared) {
    throw badRequest(
      sniffed ? `The bytes are ${sniffed}, not the ${declared} the Content-Type says.` : `The bytes are not ${declared} (nor any of PNG, JPEG, GIF).`,
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
  const { frames } = info;
  if (frames && (frames.width > IMAGE_MAX_SIDE || frames.height > IMAGE_MAX_SIDE)) {
    throw badRequest(
      `A frame of the GIF reaches ${frames.width}×${frames.height} px, past its ${info.width}×${info.height} screen; at most ${IMAGE_MAX_SIDE} px a side.`,
      { field: 'body', frameWidth: frames.width, frameHeight: frames.height },
    );
  }
  return info;
}

const inUse = (uses: ImageUses) => uses.orgLogo || uses.users > 0 || uses.templates.length > 0 || uses.campaigns.length > 0;

/**
 * The 409 of a delete that would leave broken images: it names every place that shows the image,
 * so the admin knows what to change first. Clearing them instead would lose the admin's choices.
 */
function stillUsed(uses: ImageUses): AppError {
  const named = (what: string, items: { name: string }[]) => (items.length ? [`${what} ${items.map((i) => JSON.stringify(i.name)).join(', ')}`] : []);
  const places = [
    ...(uses.orgLogo ? ["the org's logo"] : []),
    ...(uses.users > 0 ? [`the photo of ${uses.users} user${uses.users === 1 ? '' : 's'}`] : []),
    ...named(uses.templates.length === 1 ? 'template' : 'templates', uses.templates),
    ...named(uses.campaigns.length === 1 ? 'campaign' : 'campaigns', uses.campaigns),
  ];
  return conflict(`The image is in use (${places.join('; ')}): change those first, or their signatures would show a broken image.`, {
    uses: {
      orgLogo: uses.orgLogo,
      users: uses.users,
      templates: uses.templates.map((t) => ({ templateId: t.id, name: t.name })),
      campaigns: uses.campaigns.map((c) => ({ campaignId: c.id, name: c.name })),
    },
  });
}

export function createImageService(deps: {
  db: Db;
  baseUrl: string;
  caches: Pick<Caches, 'images' | 'invalidate'>;
  /** The embedded store's files; none on a PostgreSQL server (the rows keep the bytes). */
  files: ImageFiles | undefined;
  /** IMAGES_MAX_BYTES_PER_ORG. */
  maxBytesPerOrg: number;
  logger?: Logger;
}) {
  const { db, caches, files, maxBytesPerOrg } = deps;
  const urlOf = (imageId: string) => `${deps.baseUrl.replace(/\/$/, '')}/v1/images/${imageId}`;
  const present = (m: ImageMeta) => toImage(m, urlOf(m.id));

  function checkCaps(usage: { images: number; bytes: number }, adding: number): void {
    if (usage.images + 1 > IMAGES_MAX_PER_ORG) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The org has ${usage.images} images, the most it may keep is ${IMAGES_MAX_PER_ORG}: delete some first.`, {
        details: { limit: 'imagesPerOrg', maxImages: IMAGES_MAX_PER_ORG, images: usage.images },
      });
    }
    if (usage.bytes + adding > maxBytesPerOrg) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The org's images take ${usage.bytes} bytes; with this one they would take ${usage.bytes + adding}, past the ${maxBytesPerOrg} it may keep: delete some first.`,
        { details: { limit: 'bytesPerOrg', maxBytes: maxBytesPerOrg, usedBytes: usage.bytes } },
      );
    }
  }

  async function load(imageId: string): Promise<CachedImage> {
    const row = await imagesRepo.meta(db, imageId);
    if (!row) throw notFound('Image');
    return { orgId: row.org_id, contentType: row.content_type, etag: `"${row.sha256}"`, bytes: row.bytes };
  }

  /**
   * PostgreSQL: the bytes read from the row in parts of DATABASE_PART_BYTES, one query each: a
   * whole 1 MB image in one answer is 2 MB of hex for the driver to gather and decode in one go,
   * which held the event loop for every other request. Once read whole, it is cached with its bytes.
   */
  function fromDatabase(imageId: string, image: CachedImage): Readable {
    const parts: Buffer[] = [];
    let offset = 0;
    return new Readable({
      read() {
        if (offset >= image.bytes) {
          caches.images.set(imageId, { ...image, data: Buffer.concat(parts) });
          this.push(null);
          return;
        }
        imagesRepo.part(db, imageId, offset, DATABASE_PART_BYTES).then(
          (part) => {
            if (!part || part.byteLength === 0) return this.destroy(new Error(`image ${imageId} has no bytes past ${offset}`));
            const chunk = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
            offset += chunk.byteLength;
            parts.push(chunk);
            this.push(chunk);
          },
          (err: Error) => this.destroy(err),
        );
      },
    });
  }

  /** Soft-deletes the image (the caller holds its row lock) and audits it. */
  async function drop(tx: Db, ctx: ImageWriter, imageId: string): Promise<void> {
    await imagesRepo.softDelete(tx, ctx.orgId, imageId);
    await recordAudit(tx, ctx, { action: 'image.delete', targetId: imageId, changes: ['deletedAt'] });
  }

  /** After a delete's commit: no cache or file serves its bytes any more. */
  async function forget(orgId: string, imageId: string): Promise<void> {
    caches.invalidate.imageDeleted(imageId);
    await files?.remove(orgId, imageId);
  }

  /**
   * A user's photo that was replaced or removed: deleted when it was stored as a photo and
   * nothing shows it any more (no other user's photo, not the logo, in no template or campaign).
   * Any other image stays: an admin uploaded it and deletes it. True when deleted.
   */
  async function release(ctx: ImageWriter, imageId: string): Promise<boolean> {
    const deleted = await db.transaction().execute(async (tx) => {
      const image = await imagesRepo.findLocked(tx, ctx.orgId, imageId, 'update');
      if (image?.origin !== 'photo' || inUse(await imagesRepo.uses(tx, ctx.orgId, imageId))) return false;
      await drop(tx, ctx, imageId);
      return true;
    });
    if (deleted) await forget(ctx.orgId, imageId);
    return deleted;
  }

  return {
    /** `origin` 'photo' for a user's photo: deleted by `release` once it is replaced and unused. */
    async upload(ctx: ImageWriter, declared: string, data: Uint8Array, origin: ImageOrigin = 'upload'): Promise<Image> {
      const info = check(declared, data);
      // A first look without a lock, so that an org past its caps writes no file; the look that
      // counts is in the transaction, under the org's lock.
      checkCaps(await imagesRepo.usage(db, ctx.orgId), data.byteLength);
      const id = randomUUID();
      const sha256 = createHash('sha256').update(data).digest('hex');
      if (files) await files.write(ctx.orgId, id, data);
      try {
        return await db.transaction().execute(async (tx) => {
          checkCaps(await imagesRepo.usageForUpdate(tx, ctx.orgId), data.byteLength);
          const row = await imagesRepo.insert(tx, {
            id,
            org_id: ctx.orgId,
            content_type: info.contentType,
            width: info.width,
            height: info.height,
            bytes: data.byteLength,
            sha256,
            data: files ? null : data,
            origin,
          });
          await recordAudit(tx, ctx, { action: 'image.create', targetId: row.id, changes: ['contentType', 'height', 'width'] });
          return present(row);
        });
      } catch (err) {
        await files?.remove(ctx.orgId, id);
        throw err;
      }
    },

    async list(orgId: string, page: PageRequest): Promise<Page<Image>> {
      const rows = await imagesRepo.list(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, present);
    },

    /** An admin's delete: 409 naming where the image is used, so no signature shows a broken image. */
    async remove(ctx: ImageWriter, imageId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await imagesRepo.findLocked(tx, ctx.orgId, imageId, 'update'))) throw notFound('Image');
        const uses = await imagesRepo.uses(tx, ctx.orgId, imageId);
        if (inUse(uses)) throw stillUsed(uses);
        await drop(tx, ctx, imageId);
      });
      await forget(ctx.orgId, imageId);
    },

    release,

    /**
     * `release`, after a change that let go of a photo has committed (a user's photo replaced or
     * removed, the user deleted: through the API, SCIM or a directory sync). A failure is logged
     * and leaves the image behind; it never fails the change that was made.
     */
    async releaseAfter(ctx: ImageWriter, imageId: string | null | undefined): Promise<void> {
      if (!imageId) return;
      await release(ctx, imageId).catch((err: unknown) => deps.logger?.warn({ err, imageId }, 'a photo no one shows any more was not deleted'));
    },

    /** A live image, for anyone (mail clients fetch it); its ETag is the content's hash. */
    async content(imageId: string): Promise<ImageContent> {
      let image = caches.images.get(imageId);
      if (!image) {
        image = await load(imageId);
        caches.images.set(imageId, image);
      }
      const { data, ...found } = image;
      return {
        ...found,
        async body() {
          if (data) return data;
          if (!files) return fromDatabase(imageId, found);
          const handle = await files.open(found.orgId, imageId);
          if (!handle) {
            caches.images.delete(imageId);
            throw notFound('Image');
          }
          // Its length said: the stream ends with its last bytes, rather than after one more read
          // finds the end, when the client (told the length) may already be gone or closing.
          return handle.createReadStream({ start: 0, end: found.bytes - 1, highWaterMark: PART_BYTES });
        },
      };
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
