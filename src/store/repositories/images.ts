import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ImageContentType, ImageRow } from '../schema.ts';

/** An image without its bytes: what lists and uploads answer. */
export type ImageMeta = Omit<ImageRow, 'data'>;

const META = ['id', 'seq', 'org_id', 'content_type', 'width', 'height', 'bytes', 'sha256', 'created_at', 'deleted_at'] as const;

export const imagesRepo = {
  async insert(
    db: Db,
    image: { id: string; org_id: string; content_type: ImageContentType; width: number; height: number; bytes: number; sha256: string; data: Uint8Array },
  ): Promise<ImageMeta> {
    return db
      .insertInto('images')
      .values({ ...image, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength) })
      .returning(META)
      .executeTakeFirstOrThrow();
  },

  /** A live image's meta, scoped to its org. */
  async find(db: Db, orgId: string, imageId: string): Promise<ImageMeta | undefined> {
    return db.selectFrom('images').select(META).where('org_id', '=', orgId).where('id', '=', imageId).where('deleted_at', 'is', null).executeTakeFirst();
  },

  /** A live image with its bytes, by id alone: the public route that mail clients fetch. */
  async content(db: Db, imageId: string): Promise<Pick<ImageRow, 'content_type' | 'sha256' | 'data' | 'bytes'> | undefined> {
    return db
      .selectFrom('images')
      .select(['content_type', 'sha256', 'data', 'bytes'])
      .where('id', '=', imageId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  async list(db: Db, orgId: string, after: string | undefined, limit: number): Promise<ImageMeta[]> {
    let query = db.selectFrom('images').select(META).where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query.orderBy('seq').limit(limit + 1).execute();
  },

  async softDelete(db: Db, orgId: string, imageId: string): Promise<ImageMeta | undefined> {
    return db
      .updateTable('images')
      .set({ deleted_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', imageId)
      .where('deleted_at', 'is', null)
      .returning(META)
      .executeTakeFirst();
  },
};
