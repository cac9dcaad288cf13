// The Microsoft Entra connection of an org (docs/entra-sync.md): connect with an app
// registration's client credentials (the secret sealed with SECRETS_KEY), read its status,
// disconnect, sync the directory now or as a dry run, and the sync itself (the job's body): read
// every user from Graph and apply them with src/directory/ as Google's sync does.
import type { Db } from '../store/db.ts';
import { microsoftRepo } from '../store/repositories/microsoft.ts';
import type { MicrosoftIntegrationRow } from '../store/schema.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { SecretError, sealedContext, type SecretBox } from '../secrets/module.ts';
import type { DirectoryService, DirectoryUser } from '../directory/module.ts';
import { enqueue, type EnqueuedJob } from '../jobs/queue.ts';
import { MicrosoftError, type Credentials, type GraphClient } from './graph.ts';
import { toDirectoryUser } from './mapping.ts';
import { DRY_RUN_DEADLINE_MS, withinDeadline } from '../lib/deadline.ts';

export const SYNC_JOB = 'microsoft.sync';

export interface ConnectInput {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export function createMicrosoftService(deps: { db: Db; secrets: SecretBox; graph: GraphClient; directory: DirectoryService; clock: () => Date; dryRunDeadlineMs?: number | undefined }) {
  const { db, secrets, graph, clock } = deps;
  const context = (orgId: string) => sealedContext('microsoft', orgId);

  async function require(orgId: string): Promise<MicrosoftIntegrationRow> {
    const row = await microsoftRepo.find(db, orgId);
    if (!row) throw notFound('Microsoft 365 connection');
    return row;
  }

  const credentialsOf = (row: MicrosoftIntegrationRow): Credentials => ({
    tenantId: row.tenant_id,
    clientId: row.client_id,
    clientSecret: secrets.open(row.sealed_secret, context(row.org_id)),
  });

  /** Every user of the tenant, mapped; an empty tenant is a fault (applying it would delete every synced user). */
  async function readDirectory(row: MicrosoftIntegrationRow, signal?: AbortSignal): Promise<DirectoryUser[]> {
    const users = (await graph.listUsers(credentialsOf(row), signal)).map(toDirectoryUser).filter((u) => u.email !== '');
    if (users.length === 0) throw new MicrosoftError('other', 'Microsoft Graph listed no users at all; nothing was changed.');
    return users;
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
        const { row, created } = await microsoftRepo.upsert(tx, { orgId: ctx.orgId, tenantId: input.tenantId, clientId: input.clientId, sealedSecret });
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
      const row = await require(orgId);
      let directory: DirectoryUser[];
      try {
        directory = await withinDeadline(deps.dryRunDeadlineMs ?? DRY_RUN_DEADLINE_MS, 'Microsoft Graph', (signal) => readDirectory(row, signal));
      } catch (err) {
        if (err instanceof MicrosoftError || err instanceof SecretError) {
          throw new AppError('BAD_REQUEST', `The directory could not be read: ${err.message}`, { details: { microsoft: err instanceof MicrosoftError ? err.kind : 'secret' } });
        }
        throw err;
      }
      return deps.directory.apply({ orgId, source: 'microsoft', directory, dryRun: true, correlationId: null });
    },

    /** The job's body: read the tenant's users, apply them, record the outcome on the connection. */
    async sync(orgId: string, ctx: { signal?: AbortSignal; progress?: (done: number, total: number) => void; correlationId?: string | null } = {}) {
      const row = await microsoftRepo.find(db, orgId);
      if (!row) return undefined; // Disconnected since the job was queued.
      try {
        const directory = await readDirectory(row, ctx.signal);
        const result = await deps.directory.apply({
          orgId,
          source: 'microsoft',
          directory,
          dryRun: false,
          correlationId: ctx.correlationId ?? null,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          ...(ctx.progress ? { onProgress: ctx.progress } : {}),
        });
        await microsoftRepo.recordOutcome(db, orgId, null, clock());
        return result;
      } catch (err) {
        const message = err instanceof MicrosoftError || err instanceof SecretError ? err.message : undefined;
        if (message) await microsoftRepo.recordOutcome(db, orgId, message, clock()).catch(() => {});
        throw err;
      }
    },
  };
}

export type MicrosoftService = ReturnType<typeof createMicrosoftService>;
