// The bodies of the Google jobs: a directory sync and a signature push. They throw GoogleError
// (`transient` ones are worth another try later) and leave retrying to the job queue; everything
// they did before a failure is recorded, so the next attempt goes on from there.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { recordFailedDeployment } from '../outbound-webhooks/events.ts';
import { deploymentsRepo } from '../store/repositories/deployments.ts';
import { AppError } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { DirectoryService, DirectoryUser } from '../directory/service.ts';
import type { RenderService } from '../render/service.ts';
import type { OrgService } from '../orgs/service.ts';
import { graceExpired, planFacts } from '../billing/gate.ts';
import { GoogleError } from './errors.ts';
import type { GoogleClient, GoogleCredentials } from './client.ts';
import { toDirectoryUser } from './mapping.ts';
import type { GoogleMetrics, PushOutcome } from './metrics.ts';
import { credentialsOf } from './credentials.ts';
import { JOB_KINDS, type Enqueue } from './kinds.ts';

/** Gmail refuses signatures longer than this: 10,000 characters. */
export const GMAIL_SIGNATURE_MAX_CHARS = 10_000;
const MAX_PAGES = 2000;
/** How long a run's lease holds without renewal (renewed every third of it). */
const LEASE_S = 60;
/** When a run finds another one of the org under way, it queues itself again this much later. */
const BUSY_RETRY_MS = 3000;

export interface RunContext {
  signal?: AbortSignal | undefined;
  progress?: (done: number, total: number) => Promise<void> | void;
}

/** Every user of the Workspace, page after page, mapped to our fields. */
export async function readDirectory(client: GoogleClient, creds: GoogleCredentials, adminEmail: string, ctx: RunContext = {}): Promise<DirectoryUser[]> {
  const users: DirectoryUser[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listUsers(creds, adminEmail, pageToken, ctx.signal);
    users.push(...result.users.map(toDirectoryUser));
    pageToken = result.nextPageToken;
    if (!pageToken) break;
  }
  // Cut short, the list would be taken as the whole directory and the users past it deleted.
  if (pageToken) throw new GoogleError('other', `The directory listed more than ${MAX_PAGES} pages; nothing was changed.`);
  // A directory always holds at least the admin who reads it: an empty answer is a fault, and
  // applying it would delete every user the sync created.
  if (users.length === 0) throw new GoogleError('other', 'The directory answered no users at all; nothing was changed.');
  return users;
}

export interface PushSummary {
  total: number;
  deployed: number;
  unchanged: number;
  failed: number;
  skipped: number;
}

export function createGoogleRuns(deps: {
  db: Db;
  secrets: SecretBox;
  client: GoogleClient;
  directory: DirectoryService;
  render: RenderService;
  orgs: OrgService;
  clock: () => Date;
  /** Users pushed at the same time by one job. */
  pushConcurrency?: number;
  /** How long a run that found another one of its org running waits before it tries again (3 s). */
  busyRetryMs?: number;
  metrics?: GoogleMetrics;
  /** Queues a job (src/jobs/queue.ts's `enqueue`): a sync queues the push that follows it. */
  enqueue: Enqueue;
}) {
  const { db, secrets, client } = deps;
  // Each user waits on a token, a render and Google far more than it computes: many at once keep
  // the pipe full (Gmail's quota is paced separately, in client.ts).
  const concurrency = deps.pushConcurrency ?? 32;
  const busyRetryMs = deps.busyRetryMs ?? BUSY_RETRY_MS;

  /** Records a failure on the connection (its `lastError`) and passes it on; a run stopped with its instance is no failure. */
  async function failed(orgId: string, what: 'sync' | 'push', err: unknown, signal?: AbortSignal): Promise<never> {
    if (signal?.aborted) throw err;
    const message = err instanceof GoogleError || err instanceof AppError || (err instanceof Error && err.name === 'SecretError') ? err.message : 'Internal error.';
    await googleRepo.recordOutcome(db, orgId, what, message).catch(() => {});
    throw err;
  }

  /**
   * Runs `work` holding the org's lease for this kind of run. Two pushes of one org at once would
   * both send what the other is sending; when another holds the lease, this run queues itself
   * again a little later (the queued job of the same kind, if any, stands for it) and ends.
   */
  async function exclusively<T>(orgId: string, what: 'sync' | 'push', work: () => Promise<T>): Promise<T | null> {
    const token = randomUUID();
    if (!(await googleRepo.lease(db, orgId, what, token, LEASE_S))) {
      await deps.enqueue(db, { kind: JOB_KINDS[what], orgId, dedupeKey: what, runAfter: new Date(Date.now() + busyRetryMs) });
      return null;
    }
    const renew = setInterval(() => void googleRepo.lease(db, orgId, what, token, LEASE_S).catch(() => {}), (LEASE_S * 1000) / 3);
    renew.unref();
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await googleRepo.release(db, orgId, what, token).catch(() => {});
    }
  }

  return {
    sync: (orgId: string, ctx: RunContext = {}) => exclusively(orgId, 'sync', () => sync(orgId, ctx)),
    push: (orgId: string, userIds: string[] | undefined, ctx: RunContext = {}) => exclusively(orgId, 'push', () => push(orgId, userIds, ctx)),
  };

  async function sync(orgId: string, ctx: RunContext) {
    const row = await googleRepo.find(db, orgId);
    if (!row || !row.sync_users) return null;
    try {
      const directory = await readDirectory(client, credentialsOf(secrets, row), row.admin_email, ctx);
      const result = await deps.directory.apply({
        orgId,
        source: 'google',
        directory,
        dryRun: false,
        correlationId: null,
        signal: ctx.signal,
        onProgress: (done, total) => {
          if (done % 50 === 0 && done < total) void ctx.progress?.(done, total);
        },
      });
      await ctx.progress?.(result.changes.length, result.changes.length);
      await db.transaction().execute(async (tx) => {
        await googleRepo.recordOutcome(tx, orgId, 'sync', null);
        if (row.push_signatures) await deps.enqueue(tx, { kind: JOB_KINDS.push, orgId, dedupeKey: 'push' });
      });
      return result;
    } catch (err) {
      return failed(orgId, 'sync', err, ctx.signal);
    }
  }

  /**
   * Renders the default template for each user (all, or those named) and PATCHes it into their
   * primary send-as address when it differs from what was last deployed.
   */
  async function push(orgId: string, userIds: string[] | undefined, ctx: RunContext): Promise<PushSummary | null> {
    const row = await googleRepo.find(db, orgId);
    if (!row || !row.push_signatures) return null;
    try {
      const creds = credentialsOf(secrets, row);
      const [org, targets] = await Promise.all([deps.orgs.require(orgId), googleRepo.pushTargets(db, orgId, userIds)]);
      const current = await deploymentsRepo.current(db, orgId, 'gmail', targets.map((t) => t.id));
      const summary: PushSummary = { total: targets.length, deployed: 0, unchanged: 0, failed: 0, skipped: 0 };
      const count = (outcome: PushOutcome) => {
        summary[outcome]++;
        deps.metrics?.pushed(outcome);
      };
      const record = (userId: string, state: 'deployed' | 'failed' | 'skipped', extra: { reason?: string; error?: string; hash?: string } = {}) => {
        const write = {
          orgId,
          userId,
          target: 'gmail' as const,
          state,
          reason: extra.reason ?? null,
          error: extra.error ?? null,
          ...(extra.hash ? { deployed: { contentHash: extra.hash, at: deps.clock() } } : {}),
        };
        // A failure also makes the `deployment.failed` webhook event, in its transaction.
        return state === 'failed' ? recordFailedDeployment(db, { ...write, state }, deps.clock()) : deploymentsRepo.record(db, write);
      };
      const blocked = graceExpired(planFacts(org), deps.clock());

      const one = async (target: { id: string; email: string }) => {
        const was = current.get(target.id);
        const skip = async (reason: string) => {
          count('skipped');
          if (was?.state !== 'skipped' || was.reason !== reason) await record(target.id, 'skipped', { reason });
        };
        if (blocked) return skip('payment_required');
        let html: string;
        try {
          html = (await deps.render.render(orgId, target.id)).html;
        } catch (err) {
          if (err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE') return skip('too_long');
          throw err;
        }
        if (html.length > GMAIL_SIGNATURE_MAX_CHARS) return skip('too_long');
        const hash = createHash('sha256').update(html).digest('base64url');
        if (was?.contentHash === hash) {
          count('unchanged');
          // Still what the mailbox holds: a deployed row stays deployed; any other becomes `unchanged`.
          if (was.state !== 'deployed' && !(was.state === 'skipped' && was.reason === 'unchanged')) await record(target.id, 'skipped', { reason: 'unchanged' });
          return;
        }
        try {
          await client.patchSignature(creds, target.email, html, ctx.signal);
        } catch (err) {
          if (!(err instanceof GoogleError) || err.retryable) throw err;
          if (err.kind === 'unknown_user') return skip('not_in_directory');
          if (err.kind === 'too_long') return skip('too_long');
          count('failed');
          await record(target.id, 'failed', { error: err.message });
          // A refusal of the key or of the delegation is the same for every user: stop here.
          if (err.kind === 'delegation' || err.kind === 'key_invalid') throw err;
          return;
        }
        count('deployed');
        await record(target.id, 'deployed', { hash });
      };

      let next = 0;
      let done = 0;
      let stop: unknown;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, targets.length) }, async () => {
          while (stop === undefined && next < targets.length) {
            const target = targets[next++]!;
            try {
              ctx.signal?.throwIfAborted();
              await one(target);
            } catch (err) {
              stop ??= err;
              return;
            }
            done++;
            if (done % 50 === 0 && done < targets.length) await ctx.progress?.(done, targets.length);
          }
        }),
      );
      if (stop !== undefined) throw stop;
      // Written once all workers are done, so no earlier count lands after it.
      await ctx.progress?.(targets.length, targets.length);
      await googleRepo.recordOutcome(db, orgId, 'push', null);
      return summary;
    } catch (err) {
      return failed(orgId, 'push', err, ctx.signal);
    }
  }
}

export type GoogleRuns = ReturnType<typeof createGoogleRuns>;
