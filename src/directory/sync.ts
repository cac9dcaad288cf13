// A directory sync, the same for every connector (connector.ts): read the directory, apply it
// (service.ts), record the outcome on the connection. Also its dry run, read inside a request under
// a deadline. Errors are left to the job queue (jobs.ts converts them); everything applied before a
// failure stays, so the next run goes on from there.
import type { Db } from '../store/db.ts';
import { DRY_RUN_DEADLINE_MS, withinDeadline } from '../lib/deadline.ts';
import { readDirectory, type DirectoryConnector } from './connector.ts';
import { failureMessage, toDryRunError } from './errors.ts';
import type { DirectoryResult, DirectoryService } from './service.ts';
import type { PhotoCounts, PhotoSync } from './photos.ts';

export interface SyncContext {
  signal?: AbortSignal | undefined;
  progress?: ((done: number, total: number) => Promise<void> | void) | undefined;
  correlationId?: string | null;
}

/** A sync's outcome: the users' changes, and what became of their photos (when the directory keeps some). */
export type SyncResult = DirectoryResult & { photos?: PhotoCounts };

export function createDirectorySync(deps: { db: Db; directory: DirectoryService; photos?: PhotoSync | undefined; dryRunDeadlineMs?: number | undefined }) {
  const { db } = deps;

  /** The sync itself: undefined when the org has no connection (gone since the job was queued) or does not sync users. */
  async function run<C, L>(connector: DirectoryConnector<C, L>, orgId: string, connection: C, ctx: SyncContext): Promise<SyncResult> {
    try {
      const directory = await readDirectory(connector, connection, ctx.signal);
      const result = await deps.directory.apply({
        orgId,
        source: connector.source,
        directory,
        dryRun: false,
        correlationId: ctx.correlationId ?? null,
        signal: ctx.signal,
        onProgress: (done, total) => {
          if (done % 50 === 0 && done < total) void ctx.progress?.(done, total);
        },
      });
      // The users' photos once their users exist (photos.ts): bounded, and never a failure of the sync.
      const photos = await deps.photos?.(connector, orgId, connection, directory, { signal: ctx.signal, correlationId: ctx.correlationId ?? null });
      await ctx.progress?.(result.changes.length, result.changes.length);
      await db.transaction().execute(async (tx) => {
        await connector.recordOutcome(tx, orgId, null);
        await connector.afterSync?.(tx, orgId, connection);
      });
      return photos ? { ...result, photos } : result;
    } catch (err) {
      // A run stopped with its instance is no failure of the connection.
      if (!ctx.signal?.aborted) await connector.recordOutcome(db, orgId, failureMessage(err)).catch(() => {});
      throw err;
    }
  }

  return {
    /** Syncs the org's users from the directory now (the job's body); null when there was nothing to do, or another sync of the org ran. */
    async sync<C, L>(connector: DirectoryConnector<C, L>, orgId: string, ctx: SyncContext = {}): Promise<SyncResult | null> {
      const work = async () => {
        const connection = await connector.connection(orgId);
        if (connection === undefined || !connector.syncsUsers(connection)) return null;
        return run(connector, orgId, connection, ctx);
      };
      return connector.exclusive ? ((await connector.exclusive(orgId, work)) ?? null) : work();
    },

    /**
     * What a sync would change, answered without changing anything: the directory is read within
     * the deadline (a 503 past it), a directory that cannot be read is a 400 saying why.
     */
    async dryRun<C, L>(connector: DirectoryConnector<C, L>, orgId: string, connection: C): Promise<DirectoryResult> {
      const directory = await withinDeadline(deps.dryRunDeadlineMs ?? DRY_RUN_DEADLINE_MS, connector.label, (signal) =>
        readDirectory(connector, connection, signal),
      ).catch((err: unknown) => {
        throw toDryRunError(err, connector.source);
      });
      return deps.directory.apply({ orgId, source: connector.source, directory, dryRun: true, correlationId: null });
    },
  };
}

export type DirectorySync = ReturnType<typeof createDirectorySync>;
