// The embedded store's image bytes, as files: `<dir>/<orgId>/<imageId>`. PGlite runs on the main
// thread, so a 1 MB image read or written through it held the event loop for every tenant
// (DECISIONS wave 3, "Nothing big on the event loop"); the file system's calls run on libuv's
// thread pool instead, and a fetch streams the file. A PostgreSQL server keeps the bytes in the
// row (several instances serve them), so this is the embedded store's only.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { imagesRepo } from '../store/repositories/images.ts';

// Ids are UUIDs the service made (routes check the path's), so they are safe as file names; the
// check here keeps a path from ever leaving the directory whatever a caller passes.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ImageFiles {
  /** Writes the bytes whole or not at all: a temporary file, flushed, then renamed into place. */
  write(orgId: string, imageId: string, data: Uint8Array): Promise<void>;
  /** The open file, or undefined when there is none. The caller streams it (and so closes it). */
  open(orgId: string, imageId: string): Promise<FileHandle | undefined>;
  remove(orgId: string, imageId: string): Promise<void>;
  /**
   * Moves the bytes that rows still keep in the database (images uploaded before this store) to
   * files, a few at a time: at start-up, before the service answers.
   */
  adopt(db: Db): Promise<number>;
}

export function imageFiles(dir: string): ImageFiles {
  const pathOf = (orgId: string, imageId: string) => {
    if (!UUID.test(orgId) || !UUID.test(imageId)) throw new Error(`not an image id: ${orgId}/${imageId}`);
    return join(dir, orgId.toLowerCase(), imageId.toLowerCase());
  };

  const files: ImageFiles = {
    async write(orgId, imageId, data) {
      const path = pathOf(orgId, imageId);
      await mkdir(join(path, '..'), { recursive: true });
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } catch (err) {
        await handle.close();
        await rm(temporary, { force: true });
        throw err;
      }
      await handle.close();
      await rename(temporary, path);
    },

    async open(orgId, imageId) {
      try {
        return await open(pathOf(orgId, imageId), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },

    async remove(orgId, imageId) {
      await rm(pathOf(orgId, imageId), { force: true });
    },

    async adopt(db) {
      let moved = 0;
      for (;;) {
        const rows = await imagesRepo.withBytes(db, 20);
        if (rows.length === 0) return moved;
        // Written first, forgotten after: a crash between the two writes the file again next time.
        for (const r of rows) await files.write(r.org_id, r.id, r.data);
        await imagesRepo.dropBytes(
          db,
          rows.map((r) => r.id),
        );
        moved += rows.length;
      }
    },
  };
  return files;
}

/**
 * The image files of this database, ready: its rows' bytes moved to them. None on a PostgreSQL
 * server (its rows keep the bytes, for every instance).
 */
export async function openImageFiles(database: Database, logger: Logger): Promise<ImageFiles | undefined> {
  if (!database.filesDir) return undefined;
  const files = imageFiles(join(database.filesDir, 'images'));
  const moved = await files.adopt(database.db);
  if (moved > 0) logger.info({ images: moved }, 'image bytes moved from the embedded database to files');
  return files;
}
