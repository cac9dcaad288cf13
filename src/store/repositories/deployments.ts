import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DeploymentState, DeploymentTarget } from '../schema.ts';

export interface DeploymentFilter {
  userId?: string | undefined;
  target?: DeploymentTarget | undefined;
  state?: DeploymentState | undefined;
}

export interface DeploymentWrite {
  orgId: string;
  userId: string;
  target: DeploymentTarget;
  state: DeploymentState;
  reason?: string | null;
  error?: string | null;
  /** Set when the content was deployed: the hash of what the mailbox now holds, and when. */
  deployed?: { contentHash: string; at: Date };
}

const listColumns = [
  'deployments.org_id',
  'deployments.user_id',
  'deployments.target',
  'deployments.seq',
  'deployments.state',
  'deployments.reason',
  'deployments.error',
  'deployments.deployed_at',
  'deployments.updated_at',
  'users.email',
] as const;

// Per-user deployment state. Every function takes the org id and filters by it.
export const deploymentsRepo = {
  /** The org's deployment rows in a stable order, with each user's address; deleted users' rows are left out. */
  async list(db: Db, orgId: string, filter: DeploymentFilter, after: string | undefined, limit: number) {
    let query = db
      .selectFrom('deployments')
      .innerJoin('users', 'users.id', 'deployments.user_id')
      .select(listColumns)
      .where('deployments.org_id', '=', orgId)
      .where('users.org_id', '=', orgId)
      .where('users.deleted_at', 'is', null);
    if (filter.userId) query = query.where('deployments.user_id', '=', filter.userId);
    if (filter.target) query = query.where('deployments.target', '=', filter.target);
    if (filter.state) query = query.where('deployments.state', '=', filter.state);
    if (after !== undefined) query = query.where('deployments.seq', '>', after);
    return query
      .orderBy('deployments.seq')
      .limit(limit + 1)
      .execute();
  },

  /** Where each of these users stands for a target: the state, and the hash of what was last deployed. */
  async current(db: Db, orgId: string, target: DeploymentTarget, userIds: string[]) {
    const found = new Map<string, { state: DeploymentState; reason: string | null; contentHash: string | null }>();
    for (let i = 0; i < userIds.length; i += 1000) {
      const rows = await db
        .selectFrom('deployments')
        .select(['user_id', 'content_hash', 'state', 'reason'])
        .where('org_id', '=', orgId)
        .where('target', '=', target)
        .where('user_id', 'in', userIds.slice(i, i + 1000))
        .execute();
      for (const r of rows) found.set(r.user_id, { state: r.state, reason: r.reason, contentHash: r.content_hash });
    }
    return found;
  },

  /** Counts by state of an org's target (live users only). */
  async countByState(db: Db, orgId: string, target: DeploymentTarget): Promise<Record<DeploymentState, number>> {
    const rows = await db
      .selectFrom('deployments')
      .innerJoin('users', 'users.id', 'deployments.user_id')
      .select(['deployments.state', sql<number>`count(*)::int`.as('n')])
      .where('deployments.org_id', '=', orgId)
      .where('deployments.target', '=', target)
      .where('users.deleted_at', 'is', null)
      .groupBy('deployments.state')
      .execute();
    const counts: Record<DeploymentState, number> = { pending: 0, deployed: 0, failed: 0, skipped: 0 };
    for (const r of rows) counts[r.state] = r.n;
    return counts;
  },

  /** Records where a user's signature stands; the content hash and deployedAt change only on a deployment. */
  async record(db: Db, w: DeploymentWrite): Promise<void> {
    const values = {
      org_id: w.orgId,
      user_id: w.userId,
      target: w.target,
      state: w.state,
      reason: w.reason ?? null,
      error: w.error ?? null,
      ...(w.deployed ? { content_hash: w.deployed.contentHash, deployed_at: w.deployed.at } : {}),
      updated_at: sql<Date>`now()`,
    };
    const { org_id: _o, user_id: _u, target: _t, ...changes } = values;
    await db
      .insertInto('deployments')
      .values(values)
      .onConflict((oc) => oc.columns(['user_id', 'target']).doUpdateSet(changes).where('deployments.org_id', '=', w.orgId))
      .execute();
  },

  /** Forgets what was deployed for an org's target (after a disconnect, the next connection pushes everything again). */
  async clear(db: Db, orgId: string, target: DeploymentTarget): Promise<void> {
    await db.deleteFrom('deployments').where('org_id', '=', orgId).where('target', '=', target).execute();
  },
};
