// The Microsoft Entra connection of an org (docs/entra-sync.md): connect with an app
// registration's client credentials (the secret sealed with SECRETS_KEY), read its status,
// disconnect, sync the directory now or as a dry run. The sync itself is every directory's
// (connector.ts here, src/directory/sync.ts).
import type { Db } from '../store/db.ts';
import { microsoftRepo } from '../store/repositories/microsoft.ts';
import type { MicrosoftIntegrationRow } from '../store/schema.ts';
import { notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { sealedContext, type SecretBox } from '../secrets/module.ts';
import type { DirectoryService } from '../directory/module.ts';
import type { DirectorySync } from '../directory/module.ts';
import { syncJobKind } from '../directory/module.ts';
import { enqueue, type EnqueuedJob } from '../jobs/queue.ts';
import type { MicrosoftConnector } from './connector.ts';

export const SYNC_JOB = syncJobKind('microsoft');

export interface ConnectInput {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export function createMicrosoftService(deps: { db: Db; secrets: SecretBox; directory: DirectoryService; sync: DirectorySync; connector: MicrosoftConnector }) {
  const { db, secrets } = deps;
  const context = (orgId: string) => sealedContext('microsoft', orgId);

  async function require(orgId: string): Promise<MicrosoftIntegrationRow> {
    const row = await microsoftRepo.find(db, orgId);
    if (!row) throw notFound('Microsoft 365 connection');
    return row;
  }

  return {
    /** The connection and how its syncs went. */
    async status(orgId: string) {
      const row = await require(orgId);
      return { row, lastRun: (await deps.directory.lastRun(orgId, 'microsoft')) ?? null };
    },

    /** Connects (or replaces the credentials) and queues a first sync. */
    async connect(ctx: WriteContext, input: ConnectInput): Promise<{ row: MicrosoftIntegrationRow; job: EnqueuedJob }> {
      // Sealed before the transaction: without SECRETS_KEY this is the 503 that says how to make one.
      const sealedSecret = secrets.seal(input.clientSecret, context(ctx.orgId));
      return db.transaction().execute(async (tx) => {
        const { row, created } = await microsoftRepo.upsert(tx, {
          orgId: ctx.orgId,
          tenantId: input.tenantId,
          clientId: input.clientId,
          sealedSecret,
          syncIntervalS: deps.connector.syncIntervalS,
        });
        await recordAudit(tx, ctx, {
          action: created ? 'integration.microsoft.connect' : 'integration.microsoft.update',
          targetId: ctx.orgId,
          changes: ['clientId', 'clientSecret', 'tenantId'],
        });
        const job = await enqueue(tx, { kind: SYNC_JOB, orgId: ctx.orgId, dedupeKey: 'sync' });
        return { row, job };
      });
    },

    /** Disconnects; the users the sync made stay (an admin removes them, or connects again). */
    async disconnect(ctx: WriteContext): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await microsoftRepo.remove(tx, ctx.orgId))) throw notFound('Microsoft 365 connection');
        await recordAudit(tx, ctx, { action: 'integration.microsoft.disconnect', targetId: ctx.orgId });
      });
    },

    /** Queues a sync now (a queued one is answered instead of a second). */
    async startSync(ctx: WriteContext): Promise<EnqueuedJob> {
      await require(ctx.orgId);
      return db.transaction().execute(async (tx) => {
        const job = await enqueue(tx, { kind: SYNC_JOB, orgId: ctx.orgId, dedupeKey: 'sync' });
        await recordAudit(tx, ctx, { action: 'integration.microsoft.sync', targetId: job.jobId });
        return job;
      });
    },

    /** Reads the directory now and answers what a sync would change, changing nothing. */
    async dryRun(orgId: string) {
      return deps.sync.dryRun(deps.connector, orgId, await require(orgId));
    },
  };
}

export type MicrosoftService = ReturnType<typeof createMicrosoftService>;
