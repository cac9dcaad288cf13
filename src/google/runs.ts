// The body of the Gmail push job (the sync is every directory's, src/directory/sync.ts, with
// connector.ts). It throws GoogleError (`transient` ones are worth another try later) and leaves
// retrying to the job queue; everything it did before a failure is recorded, so the next attempt
// goes on from there.
import { createHash } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { deploymentsRepo } from '../store/repositories/deployments.ts';
import { AppError } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { RenderService } from '../render/service.ts';
import type { OrgService } from '../orgs/service.ts';
import { graceExpired, planFacts } from '../billing/gate.ts';
import { GoogleError } from './errors.ts';
import type { GoogleClient } from './client.ts';
import type { GoogleMetrics, PushOutcome } from './metrics.ts';
import { credentialsOf } from './credentials.ts';
import type { GoogleLease } from './lease.ts';
import { failureMessage } from '../directory/errors.ts';

/** Gmail refuses signatures longer than this (REFERENCE-DEPLOY: 10,000 characters). */
export const GMAIL_SIGNATURE_MAX_CHARS = 10_000;

export interface RunContext {
  signal?: AbortSignal | undefined;
  progress?: ((done: number, total: number) => Promise<void> | void) | undefined;
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
  render: RenderService;
  orgs: OrgService;
  clock: () => Date;
  /** Users pushed at the same time by one job. */
  pushConcurrency?: number;
  metrics?: GoogleMetrics | undefined;
  /** One push of an org at a time. */
  lease: GoogleLease;
}) {
  const { db, secrets, client } = deps;
  // Each user waits on a token, a render and Google far more than it computes: many at once keep
  // the pipe full (Gmail's quota is paced separately, in client.ts).
  const concurrency = deps.pushConcurrency ?? 32;

  /** Records a failure on the connection (its `lastError`) and passes it on; a run stopped with its instance is no failure. */
  async function failed(orgId: string, err: unknown, signal?: AbortSignal): Promise<never> {
    if (signal?.aborted) throw err;
    await googleRepo.recordOutcome(db, orgId, 'push', failureMessage(err)).catch(() => {});
    throw err;
  }

  return {
    push: (orgId: string, userIds: string[] | undefined, ctx: RunContext = {}) => deps.lease.exclusively(orgId, 'push', () => push(orgId, userIds, ctx)),
  };

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
      const record = (userId: string, state: 'deployed' | 'failed' | 'skipped', extra: { reason?: string; error?: string; hash?: string } = {}) =>
        deploymentsRepo.record(db, {
          orgId,
          userId,
          target: 'gmail',
          state,
          reason: extra.reason ?? null,
          error: extra.error ?? null,
          ...(extra.hash ? { deployed: { contentHash: extra.hash, at: deps.clock() } } : {}),
        });
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
      return failed(orgId, err, ctx.signal);
    }
  }
}

export type GoogleRuns = ReturnType<typeof createGoogleRuns>;
