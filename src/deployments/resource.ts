// A user's deployment as the API answers it: the one place a deployments row (with the user's
// address) becomes the resource.
import type { deploymentsRepo } from '../store/repositories/deployments.ts';
import type { DeploymentState, DeploymentTarget } from '../store/schema.ts';

type DeploymentListRow = Awaited<ReturnType<typeof deploymentsRepo.list>>[number];

export interface Deployment {
  userId: string;
  email: string;
  target: DeploymentTarget;
  state: DeploymentState;
  /** Why it was skipped; null otherwise. */
  reason: string | null;
  /** What the mailbox provider answered, when the deployment failed. */
  error: string | null;
  deployedAt: string | null;
  updatedAt: string;
}

export const toDeployment = (r: DeploymentListRow): Deployment => ({
  userId: r.user_id,
  email: r.email,
  target: r.target,
  state: r.state,
  reason: r.reason,
  error: r.error,
  deployedAt: r.deployed_at?.toISOString() ?? null,
  updatedAt: r.updated_at.toISOString(),
});
