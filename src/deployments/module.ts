// Per-user deployment state of signatures in mailboxes (Gmail pushes, the Outlook add-in).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { createDeploymentService, type DeploymentService } from './service.ts';
import { deploymentRoutes } from './routes.ts';

export { deploymentWrite, prepareSignature, type DeploymentOutcome, type DeploymentTarget } from './target.ts';
export type { DeploymentSkipReason } from './service.ts';

export type { DeploymentService };

export function deploymentsModule(core: Core): Module<DeploymentService> {
  const deployments = createDeploymentService({ db: core.db });
  return { name: 'deployments', service: deployments, api: ({ guards }) => [deploymentRoutes({ guards, deployments })] };
}
