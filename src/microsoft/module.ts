// Microsoft Entra: the connection and its directory connector (its sync is the directory module's).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DirectoryModule } from '../directory/module.ts';
import { createGraphClient } from './graph.ts';
import { microsoftConnector, type MicrosoftConnector } from './connector.ts';
import { createMicrosoftService, type MicrosoftService } from './service.ts';
import { microsoftRoutes } from './routes.ts';

export type { MicrosoftService };

export type MicrosoftModule = Module<MicrosoftService> & { connector: MicrosoftConnector };

export function microsoftModule(core: Core, needs: { secrets: Module<SecretBox>; directory: DirectoryModule }): MicrosoftModule {
  const { config, db, clock } = core;
  const secrets = needs.secrets.service;
  const connector = microsoftConnector({
    db,
    secrets,
    graph: createGraphClient({ loginUrl: config.microsoft.loginUrl, graphUrl: config.microsoft.graphUrl, clock }),
    clock,
    syncIntervalS: config.microsoft.syncIntervalS,
  });
  const microsoft = createMicrosoftService({ db, secrets, directory: needs.directory.service, sync: needs.directory.sync, connector });
  return {
    name: 'microsoft',
    service: microsoft,
    connector,
    api: ({ guards, billing }) => [microsoftRoutes({ guards, billing, microsoft })],
  };
}
