// The SMTP signature gateway's module: its service (gateway.ts) and its routes. The listener is
// not a timer: main.ts starts it when GATEWAY_PORT is set, or alone for `sigsvc gateway`.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { OrgService } from '../orgs/module.ts';
import type { RenderService } from '../render/module.ts';
import type { UserService } from '../users/module.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { gatewayRoutes } from './routes.ts';

export type { Gateway };

export function gatewayModule(core: Core, needs: { orgs: Module<OrgService>; render: Module<RenderService>; users: Module<UserService> }): Module<Gateway> {
  const gateway = createGateway({
    db: core.db,
    logger: core.logger,
    clock: core.clock,
    config: core.config,
    metrics: core.metrics,
    render: needs.render.service,
    users: needs.users.service,
    requireOrg: (orgId) => needs.orgs.service.require(orgId),
  });
  return {
    name: 'gateway',
    service: gateway,
    api: ({ guards, billing }) => [gatewayRoutes({ guards, billing, gateway })],
    close: () => gateway.close(),
  };
}
