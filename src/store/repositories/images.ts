import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ImageContentType, ImageOrigin, ImageRow } from '../schema.ts';

/** An image without its bytes: what lists and uploads answer. */
export type ImageMeta = Omit<ImageRow, 'data'>;

const META = ['id', 'seq', 'org_id', 'content_type', 'width', 'height', 'bytes', 'sha256', 'origin', 'created_at', 'deleted_at'] as const;

/** What shows an image: the org's logo, users' photos, templates (html or design), campaigns' variants. */
export interface ImageUses {
  orgLogo: boolean;
  /** Live users whose photo it is. */
  users: number;
  templates: { id: string; name: string }[];
  campaigns: { id: string; name: string }[];
}

export const imagesRepo = {
  /** `data` null: the bytes are kept outside the database (the embedded store's files). */
  async insert(
    db: Db,
    image: {
      id: string;
      org_id: string;
      content_type: ImageContentType;
      width: number;
      height: number;
      bytes: number;
      sha256: string;
      data: Uint8Array | null;
      /** 'upload' when not said. */
      origin?: ImageOrigin;
    },
  ): Promise<ImageMeta> {
    const { data } = image;
    return db
      .insertInto('images')
      .values({ ...image, data: data && Buffer.from(data.buffer, data.byteOffset, data.byteLength) })
      .returning(META)
      .executeTakeFirstOrThrow();
  },

  /**
   * The org's live images, counted and summed, with the org's row locked until the transaction
   * ends: two uploads at once cannot both pass the caps.
   */
  async usageForUpdate(db: Db, orgId: string): Promise<{ images: number; bytes: number }> {
    await db.selectFrom('orgs').select('id').where('id', '=', orgId).forUpdate().execute();
    return imagesRepo.usage(db, orgId);
  },

  async usage(db: Db, orgId: string): Promise<{ images: number; bytes: number }> {
    const row = await db
      .selectFrom('images')
      .select([sql<string>`count(*)`.as('images'), sql<string>`coalesce(sum(bytes), 0)`.as('bytes')])
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return { images: Number(row.images), bytes: Number(row.bytes) };
  },

  /** A live image's meta, scoped to its org. */
  async find(db: Db, orgId: string, imageId: string): Promise<ImageMeta | undefined> {
    return db.selectFrom('images').select(META).where('org_id', '=', orgId).where('id', '=', imageId).where('deleted_at', 'is', null).executeTakeFirst();
  },

  /**
   * A live image of the org, its row locked until the transaction ends. A write that makes
   * something show an image takes it `share`, a delete `update`: whichever comes second waits, and
   * then a delete sees the new use, or the write finds no image.
   */
  async findLocked(db: Db, orgId: string, imageId: string, mode: 'share' | 'update'): Promise<ImageMeta | undefined> {
    const query = db.selectFrom('images').select(META).where('org_id', '=', orgId).where('id', '=', imageId).where('deleted_at', 'is', null);
    return (mode === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
  },

  /**
   * Where the org shows the image. Templates are matched by the id anywhere in their html (a
   * compiled design's or a hand-written one's) or design (kept as history too: PATCH {design}
   * brings it back); campaigns by a variant's imageId, ended ones too (a PATCH of endsAt revives them).
   */
  async uses(db: Db, orgId: string, imageId: string): Promise<ImageUses> {
    const logo = await db.selectFrom('orgs').select('id').where('id', '=', orgId).where('logo_image_id', '=', imageId).executeTakeFirst();
    const users = await db
      .selectFrom('users')
      .select(sql<string>`count(*)`.as('n'))
      .where('org_id', '=', orgId)
      .where('photo_image_id', '=', imageId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    const templates = await db
      .selectFrom('templates')
      .select(['id', 'name'])
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`(strpos(html, ${imageId}) > 0 or strpos(coalesce(design::text, ''), ${imageId}) > 0)`)
      .orderBy('seq')
      .execute();
    const campaigns = await db
      .selectFrom('campaigns')
      .select(['id', 'name'])
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`variants @> ${JSON.stringify([{ imageId }])}::jsonb`)
      .orderBy('seq')
      .execute();
    return { orgLogo: logo !== undefined, users: Number(users.n), templates, campaigns };
  },

  /** A live image's type, hash and org, by id alone: the public route that mail clients fetch. */
  async meta(db: Db, imageId: string): Promise<Pick<ImageRow, 'org_id' | 'content_type' | 'sha256' | 'bytes'> | undefined> {
    return db
      .selectFrom('images')
      .select(['org_id', 'content_type', 'sha256', 'bytes'])
      .where('id', '=', imageId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  /**
   * `length` bytes of a live image from `offset` (fewer at its end; undefined when it has none in
   * the database). A fetch reads an image in parts, so no one answer holds the event loop long.
   */
  async part(db: Db, imageId: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    const row = await db
      .selectFrom('images')
      .select(sql<Uint8Array | null>`substring(data from ${offset + 1} for ${length})`.as('part'))
      .where('id', '=', imageId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row?.part ?? undefined;
  },

  /** Up to `limit` images whose bytes are still in the database (the embedded store's start-up move to files). */
  async withBytes(db: Db, limit: number): Promise<{ id: string; org_id: string; data: Uint8Array }[]> {
    const rows = await db.selectFrom('images').select(['id', 'org_id', 'data']).where('data', 'is not', null).orderBy('seq').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, org_id: r.org_id, data: r.data! }));
  },

  /** Forgets the bytes these images keep in the database (they are kept elsewhere now). */
  async dropBytes(db: Db, imageIds: string[]): Promise<void> {
    if (imageIds.length === 0) return;
    await db.updateTable('images').set({ data: null }).where('id', 'in', imageIds).execute();
  },

  async list(db: Db, orgId: string, after: string | undefined, limit: number): Promise<ImageMeta[]> {
    let query = db.selectFrom('images').select(META).where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /** Soft: the row stays (the audit names it); its bytes go, as nothing serves them any more. */
  async softDelete(db: Db, orgId: string, imageId: string): Promise<ImageMeta | undefined> {
    return db
      .updateTable('images')
      .set({ deleted_at: sql`now()`, data: null })
      .where('org_id', '=', orgId)
      .where('id', '=', imageId)
      .where('deleted_at', 'is', null)
      .returning(META)
      .executeTakeFirst();
  },
};
