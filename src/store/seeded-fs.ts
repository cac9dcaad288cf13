// An in-memory embedded database that starts from a data directory's files already in memory (the
// tests start hundreds of servers from one migrated snapshot). PGlite's own way, `loadDataDir`,
// takes a tarball and reads it with tinytar, which parses each header field a byte at a time and
// copies every file twice: ~0.3 s of CPU a database, half of what starting one costs (the
// twentieth part of the test suite's CPU; docs/testing.md). Here the files are parsed once per
// process and written straight into PGlite's in-memory file system before PostgreSQL starts:
// PGlite then finds a data directory and resumes it, as it does on disk.
import { MemoryFS, PGlite } from '@electric-sql/pglite';

/** A data directory's entries, parents before their contents; a directory's `data` is null. */
export interface DataDirSnapshot {
  readonly entries: readonly { readonly path: string; readonly data: Uint8Array | null }[];
}

export class SeededMemoryFs extends MemoryFS {
  readonly #snapshot: DataDirSnapshot;

  constructor(snapshot: DataDirSnapshot) {
    super();
    this.#snapshot = snapshot;
  }

  override async initialSyncFs(): Promise<void> {
    await super.initialSyncFs();
    const pg = this.pg!;
    // copyToFS copies the bytes: the snapshot's stay as they are for the next database.
    for (const { path, data } of this.#snapshot.entries) {
      if (data === null) pg.Module.FS.mkdirTree(`${PGlite.paths.PGDATA}${path}`);
      else pg.copyToFS(`${PGlite.paths.PGDATA}${path}`, data);
    }
  }
}
