// Per-user deployment state (`GET /v1/orgs/{orgId}/deployments`, docs/google-workspace.md),
// written by each deployment target (target.ts: the Gmail push, the Outlook add-in), read by admins
// and the dashboard.
import type { Db } from '../store/db.ts';
import { deploymentsRepo, type DeploymentFilter, type DeploymentWrite } from '../store/repositories/deployments.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import type { DeploymentTarget } from '../store/schema.ts';
import { toDeployment, type Deployment } from './resource.ts';

/** Why a deployment was skipped (docs/google-workspace.md, "On ours"). */
export const SKIP_REASONS = ['unchanged', 'payment_required', 'too_long', 'not_in_directory', 'suspended'] as const;
export type DeploymentSkipReason = (typeof SKIP_REASONS)[number];

export function createDeploymentService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async list(orgId: string, filter: DeploymentFilter, page: PageRequest): Promise<Page<Deployment>> {
      const rows = await deploymentsRepo.list(db, orgId, filter, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toDeployment);
    },
    // What the mailbox integrations (Gmail push, the Outlook add-in) record and read back.
    record: (write: DeploymentWrite) => deploymentsRepo.record(db, write),
    current: (orgId: string, target: DeploymentTarget, userIds: string[]) => deploymentsRepo.current(db, orgId, target, userIds),
    countByState: (orgId: string, target: DeploymentTarget) => deploymentsRepo.countByState(db, orgId, target),
    clear: (orgId: string, target: DeploymentTarget) => deploymentsRepo.clear(db, orgId, target),
  };
}

export type DeploymentService = ReturnType<typeof createDeploymentService>;
