// The Google Workspace connection of an org: connect (the key sealed with SECRETS_KEY), read its
// status, disconnect, test it in plain words, and start a sync or a push as jobs. The push's body is
// in runs.ts; the sync is every directory's (connector.ts here, src/directory/sync.ts), and so is the
// scheduler that queues both on its own (src/directory/scheduler.ts).
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { deploymentsRepo } from '../store/repositories/deployments.ts';
import type { GoogleIntegrationRow } from '../store/schema.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { SecretError, sealedContext, type SecretBox } from '../secrets/module.ts';
import type { DirectoryService } from '../directory/module.ts';
import type { DirectorySync } from '../directory/module.ts';
import type { GoogleConnector } from './connector.ts';
import { GoogleError, SCOPES } from './errors.ts';
import type { GoogleClient, GoogleCredentials } from './client.ts';
import { credentialsOf } from './credentials.ts';
import { parseServiceAccountKey } from './service-account.ts';
import { JOB_KINDS, type Enqueue, type EnqueuedJob } from './kinds.ts';

export interface ConnectInput {
  serviceAccountKey?: unknown;
  adminEmail: string;
  syncUsers: boolean;
  pushSignatures: boolean;
}

export interface TestStep {
  step: 'token' | 'directory' | 'gmail';
  ok: boolean;
  message: string;
}

export function createGoogleService(deps: {
  db: Db;
  secrets: SecretBox;
  client: GoogleClient;
  directory: DirectoryService;
  sync: DirectorySync;
  connector: GoogleConnector;
  enqueue: Enqueue;
  syncIntervalS: number;
}) {
  const { db, secrets, client } = deps;

  async function require(orgId: string): Promise<GoogleIntegrationRow> {
    const row = await googleRepo.find(db, orgId);
    if (!row) throw notFound('Google Workspace connection');
    return row;
  }

  return {
    require,

    /** The connection with its status: last runs, counts of deployments by state, the last error. */
    async status(orgId: string) {
      const row = await require(orgId);
      const [counts, lastRun] = await Promise.all([deploymentsRepo.countByState(db, orgId, 'gmail'), deps.directory.lastRun(orgId, 'google')]);
      return { row, counts, lastRun };
    },

    async connect(ctx: WriteContext, input: ConnectInput): Promise<{ row: GoogleIntegrationRow; created: boolean; jobs: EnqueuedJob[] }> {
      const existing = await googleRepo.find(db, ctx.orgId);
      if (input.serviceAccountKey === undefined && !existing) {
        throw new AppError('BAD_REQUEST', 'serviceAccountKey: is required to connect (the JSON key file of the service account).', {
          details: { field: 'body.serviceAccountKey' },
        });
      }
      const key = input.serviceAccountKey === undefined ? undefined : await parseServiceAccountKey(input.serviceAccountKey);
      // Sealed before the transaction: without SECRETS_KEY this is the 503 that says how to make one.
      const sealed = key ? secrets.seal(key.privateKey, sealedContext('google', ctx.orgId)) : undefined;
      const settings = { adminEmail: input.adminEmail.trim(), syncUsers: input.syncUsers, pushSignatures: input.pushSignatures };
      return db.transaction().execute(async (tx) => {
        let row: GoogleIntegrationRow;
        let created = false;
        if (key && sealed) {
          const keyColumns = {
            clientEmail: key.clientEmail,
            clientId: key.clientId,
            privateKeyId: key.privateKeyId,
            projectId: key.projectId,
            sealedPrivateKey: sealed,
          };
          ({ row, created } = await googleRepo.upsert(tx, ctx.orgId, keyColumns, settings, deps.syncIntervalS));
        } else {
          // Without a new key the stored one is kept as it is now (see updateSettings).
          const updated = await googleRepo.updateSettings(tx, ctx.orgId, settings);
          if (!updated) throw notFound('Google Workspace connection');
          row = updated;
        }
        const changes = ['adminEmail', 'pushSignatures', 'syncUsers', ...(key ? ['serviceAccountKey'] : [])];
        await recordAudit(tx, ctx, { action: created ? 'integration.google.connect' : 'integration.google.update', targetId: ctx.orgId, changes });
        // A new connection (or a new key) syncs the directory, then pushes every signature (the
        // sync queues the push when it is done); without a sync, the push starts at once.
        const jobs: EnqueuedJob[] = [];
        if (created || key) {
          if (row.sync_users) jobs.push(await deps.enqueue(tx, { kind: JOB_KINDS.sync, orgId: ctx.orgId, dedupeKey: 'sync' }));
          else if (row.push_signatures) jobs.push(await deps.enqueue(tx, { kind: JOB_KINDS.push, orgId: ctx.orgId, dedupeKey: 'push' }));
        }
        return { row, created, jobs };
      });
    },

    async disconnect(ctx: WriteContext): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await googleRepo.remove(tx, ctx.orgId))) throw notFound('Google Workspace connection');
        // What was deployed through this connection is forgotten: a new one pushes everything again.
        await deploymentsRepo.clear(tx, ctx.orgId, 'gmail');
        await recordAudit(tx, ctx, { action: 'integration.google.disconnect', targetId: ctx.orgId });
      });
    },

    /**
     * Gets a token and reads one directory page as the admin, then reads the admin's Gmail send-as
     * settings: each step reports what Google answered, in plain words.
     */
    async test(orgId: string): Promise<{ ok: boolean; steps: TestStep[] }> {
      const row = await require(orgId);
      const steps: TestStep[] = [];
      const run = async (step: TestStep['step'], work: () => Promise<string>) => {
        try {
          steps.push({ step, ok: true, message: await work() });
          return true;
        } catch (err) {
          if (!(err instanceof GoogleError) && !(err instanceof SecretError)) throw err;
          steps.push({ step, ok: false, message: err.message });
          return false;
        }
      };
      let creds: GoogleCredentials | undefined;
      const tokenOk = await run('token', async () => {
        creds = credentialsOf(secrets, row);
        await client.token(creds, row.admin_email, SCOPES.directory);
        return `Google issued a token for ${row.admin_email} with the directory scope: domain-wide delegation is active.`;
      });
      if (tokenOk && creds) {
        const c = creds;
        await run('directory', async () => {
          const page = await client.listUsers(c, row.admin_email, undefined);
          return `Read ${page.users.length} user${page.users.length === 1 ? '' : 's'} from the directory${page.nextPageToken ? ' (the first page)' : ''}.`;
        });
        await run('gmail', async () => {
          await client.getSendAs(c, row.admin_email);
          return `Gmail settings of ${row.admin_email} are readable with the gmail.settings.basic scope: signatures can be pushed.`;
        });
      }
      return { ok: steps.every((s) => s.ok), steps };
    },

    /** A dry run of the directory sync: reads the directory now and answers what a sync would change. */
    async dryRunSync(orgId: string) {
      return deps.sync.dryRun(deps.connector, orgId, await require(orgId));
    },

    /** Queues a sync or a push now (a queued one of the same kind is answered instead of a second). */
    async start(ctx: WriteContext, what: 'sync' | 'push'): Promise<EnqueuedJob> {
      await require(ctx.orgId);
      return db.transaction().execute(async (tx) => {
        const job = await deps.enqueue(tx, { kind: JOB_KINDS[what], orgId: ctx.orgId, dedupeKey: what });
        await recordAudit(tx, ctx, { action: `integration.google.${what}`, targetId: job.jobId });
        return job;
      });
    },
  };
}

export type GoogleService = ReturnType<typeof createGoogleService>;
