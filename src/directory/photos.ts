// Users' photos from the directory (docs/api.md, "Photos"), once a sync has applied its users. For
// each user the directory linked whose photo no person chose (an upload, a PATCH or a removal by an
// admin or the user is kept: users.photo_source, migration 140), the connector is asked for the
// photo, unless the listing already says its mark is unchanged. A new photo is stored as one of the
// org's images under the upload rules (PNG, JPEG or GIF, 1 MB, 2,000 px a side, the org's caps)
// and replaces the one the directory set before, which is deleted unless something else shows it
// (an admin made it the logo, say); a photo gone from the directory goes from the user too.
//
// Bounded: at most `perRun` users a run (the least recently asked first), `concurrency` requests at
// once, nothing downloaded whose mark is unchanged, and a run stops asking after MAX_FAILURES
// failed requests. A photo that cannot be fetched is counted and left for the next run: photos
// never fail the sync.
import type { Logger } from '../log.ts';
import type { Db } from '../store/db.ts';
import { directoryRepo } from '../store/repositories/directory.ts';
import { AppError } from '../kernel/errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { sniffType, type ImageService } from '../images/module.ts';
import type { DirectoryConnector, DirectoryPhoto } from './connector.ts';
import type { DirectoryUser } from './plan.ts';

export interface PhotoCounts {
  /** Users given a new photo. */
  updated: number;
  /** Users whose directory photo is gone, and so is theirs. */
  removed: number;
  /** Users asked about whose photo had not changed. */
  unchanged: number;
  /** Photos the directory has that we do not keep (too large, not PNG/JPEG/GIF): asked again once they change. */
  refused: number;
  /** Requests that failed (asked again next run). */
  failed: number;
}

const MAX_FAILURES = 5;

type PhotoState = Awaited<ReturnType<typeof directoryRepo.photoStates>>[number];

export function createPhotoSync(deps: { db: Db; images: ImageService; invalidate: Invalidate; clock: () => Date; logger?: Logger | undefined }) {
  const { db, images, clock } = deps;

  return async function syncPhotos<C, L>(
    connector: DirectoryConnector<C, L>,
    orgId: string,
    connection: C,
    directory: DirectoryUser[],
    ctx: { signal?: AbortSignal | undefined; correlationId: string | null },
  ): Promise<PhotoCounts> {
    const counts: PhotoCounts = { updated: 0, removed: 0, unchanged: 0, refused: 0, failed: 0 };
    const photos = connector.photos;
    if (!photos) return counts;
    const writer = { orgId, correlationId: ctx.correlationId, actor: { type: 'system' as const, id: `directory:${connector.source}` } };
    const listed = new Map(directory.filter((e) => e.active).map((e) => [e.externalId, e]));
    const due: { state: PhotoState; entry: DirectoryUser }[] = [];
    for (const state of await directoryRepo.photoStates(db, orgId, connector.source)) {
      const entry = listed.get(state.directory_id ?? '');
      // The listing's mark, when it carries one, saves a request for every unchanged photo.
      if (!entry || (entry.photoEtag !== undefined && entry.photoEtag === state.directory_photo_etag)) continue;
      due.push({ state, entry });
    }

    /** Sets or clears the user's photo (unless a person chose one meanwhile); the directory's previous one is deleted. */
    async function replace(state: PhotoState, imageId: string | null, etag: string | null): Promise<boolean> {
      const row = await db.transaction().execute(async (tx) => {
        const row = await directoryRepo.setDirectoryPhoto(tx, orgId, state.id, { imageId, etag, checkedAt: clock() });
        if (row) await recordAudit(tx, writer, { action: 'user.update', targetId: state.id, changes: ['photoImageId'] });
        return row;
      });
      if (!row) return false;
      deps.invalidate.userChanged(orgId, state.id);
      const previous = state.photo_source === 'directory' ? state.photo_image_id : null;
      // Deleted unless an admin meanwhile made it something else's (a logo, another user's photo).
      if (previous && previous !== imageId) await images.release(writer, previous);
      return true;
    }

    async function apply(state: PhotoState, photo: DirectoryPhoto): Promise<void> {
      const known = state.directory_photo_etag;
      switch (photo.state) {
        case 'unchanged':
          counts.unchanged++;
          return directoryRepo.markPhotoChecked(db, orgId, state.id, known, clock());
        case 'refused':
          counts.refused++;
          return directoryRepo.markPhotoChecked(db, orgId, state.id, photo.etag, clock());
        case 'none':
          if (state.photo_image_id === null) {
            counts.unchanged++;
            return directoryRepo.markPhotoChecked(db, orgId, state.id, null, clock());
          }
          if (await replace(state, null, null)) counts.removed++;
          return;
        case 'photo': {
          let imageId: string;
          try {
            // The bytes say what they are (a directory's declared type may be spelt its own way).
            imageId = (await images.upload(writer, sniffType(photo.data) ?? photo.contentType, photo.data, 'photo')).imageId;
          } catch (err) {
            // The org's caps (`details.limit`) may free up: asked again next run. The photo's own
            // faults (type, size, sides) last until it changes.
            if (!(err instanceof AppError) || (err.code !== 'BAD_REQUEST' && err.code !== 'PAYLOAD_TOO_LARGE')) throw err;
            if (err.details?.limit) throw err;
            counts.refused++;
            return directoryRepo.markPhotoChecked(db, orgId, state.id, photo.etag, clock());
          }
          if (await replace(state, imageId, photo.etag)) counts.updated++;
          // A person chose a photo while this one was fetched: theirs stays.
          else await images.release(writer, imageId);
        }
      }
    }

    await eachAtMost(due.slice(0, photos.perRun), photos.concurrency, async ({ state, entry }) => {
      if (counts.failed >= MAX_FAILURES) return;
      try {
        await apply(state, await photos.fetch(connection, entry, state.directory_photo_etag, ctx.signal));
      } catch (err) {
        ctx.signal?.throwIfAborted();
        counts.failed++;
        deps.logger?.warn({ err, orgId, userId: state.id, source: connector.source }, 'directory photo: not fetched; the next sync asks again');
      }
    });
    return counts;
  };
}

export type PhotoSync = ReturnType<typeof createPhotoSync>;

/**
 * Runs `work` over the items, at most `limit` at once. Hand-written: these few lines do what
 * p-limit would, without a dependency.
 */
async function eachAtMost<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
