// Orgs: one org's own settings, and creating one (its owner, first API key and starter template).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { ApiKeyService } from '../api-keys/module.ts';
import type { Inviter } from '../people/module.ts';
import { createOrgService, type FirstTemplate, type OrgService } from './service.ts';
import { orgRoutes } from './routes.ts';

export { orgSchema, staffOverridesSchema } from './schemas.ts';
export { overridesOf, toOrg, type Org, type StaffOverridesView } from './resource.ts';

export type { OrgService };

export function orgsModule(core: Core, needs: { apiKeys: Module<ApiKeyService>; invite: Inviter; starter: FirstTemplate }): Module<OrgService> {
  const orgs = createOrgService({
    db: core.db,
    caches: core.caches,
    apiKeys: needs.apiKeys.service,
    passwords: core.passwords,
    starter: needs.starter,
    invite: needs.invite,
  });
  return { name: 'orgs', service: orgs, api: ({ guards, billing }) => [orgRoutes({ guards, billing, orgs })] };
}
