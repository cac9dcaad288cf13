// The body of the Gmail push job (the sync is every directory's, src/directory/sync.ts, with
// connector.ts). It throws GoogleError (`transient` ones are worth another try later) and leaves
// retrying to the job queue; everything it did before a failure is recorded, so the next attempt
// goes on from there.
import type { Db } from '../store/db.ts';
import { googleRepo } from '../store/repositories/google.ts';
import { recordFailedDeployment } from '../outbound-webhooks/module.ts';
import { deploymentsRepo } from '../store/repositories/deployments.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { RenderService } from '../render/module.ts';
import type { OrgService } from '../orgs/module.ts';
import { graceExpired, planFacts } from '../billing/module.ts';
import type { GoogleClient } from './client.ts';
import type { GoogleMetrics, PushOutcome } from './metrics.ts';
import { credentialsOf } from './credentials.ts';
import type { GoogleLease } from './lease.ts';
import { gmailTarget } from './gmail-target.ts';
import { deploymentWrite, prepareSignature, type DeploymentOutcome } from '../deployments/module.ts';
import type { DeploymentSkipReason } from '../deployments/module.ts';
import { failureMessage } from '../directory/module.ts';

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
    if (!row?.push_signatures) return null;
    try {
      const creds = credentialsOf(secrets, row);
      const [org, targets] = await Promise.all([deps.orgs.require(orgId), googleRepo.pushTargets(db, orgId, userIds)]);
      const current = await deploymentsRepo.current(
        db,
        orgId,
        'gmail',
        targets.map((t) => t.id),
      );
      const summary: PushSummary = { total: targets.length, deployed: 0, unchanged: 0, failed: 0, skipped: 0 };
      const count = (outcome: PushOutcome) => {
        summary[outcome]++;
        deps.metrics?.pushed(outcome);
      };
      const gmail = gmailTarget(client, creds);
      const record = (userId: string, outcome: DeploymentOutcome) => {
        const write = deploymentWrite(gmail.name, orgId, userId, outcome, deps.clock());
        // A failure also makes the `deployment.failed` webhook event, in its transaction.
        return outcome.state === 'failed' ? recordFailedDeployment(db, write, deps.clock()) : deploymentsRepo.record(db, write);
      };
      const blocked = graceExpired(planFacts(org), deps.clock());

      const one = async (target: { id: string; email: string; status: string }) => {
        const was = current.get(target.id);
        const skip = async (reason: DeploymentSkipReason) => {
          count('skipped');
          if (was?.state !== 'skipped' || was.reason !== reason) await record(target.id, { state: 'skipped', reason });
        };
        // A suspended user's mailbox keeps what it has; nothing new is rendered or sent for them.
        if (target.status === 'suspended') return skip('suspended');
        const prepared = await prepareSignature(gmail, (o, u) => deps.render.render(o, u), { orgId, userId: target.id, blocked });
        if (prepared.state === 'skipped') return skip(prepared.reason);
        if (was?.contentHash === prepared.signature.contentHash) {
          count('unchanged');
          // Still what the mailbox holds: a deployed row stays deployed; any other becomes `unchanged`.
          if (was.state !== 'deployed' && !(was.state === 'skipped' && was.reason === 'unchanged'))
            await record(target.id, { state: 'skipped', reason: 'unchanged' });
          return;
        }
        const outcome = await gmail.deploy(target, prepared.signature, ctx.signal);
        if (outcome.state === 'skipped') return skip(outcome.reason);
        count(outcome.state);
        await record(target.id, outcome);
        if (outcome.state === 'failed' && outcome.stop !== undefined) throw outcome.stop;
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
