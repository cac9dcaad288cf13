// Microsoft Entra: the connection, its directory sync (a job), and the scheduler that queues syncs.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { collectJobs } from '../core/module.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DirectoryService } from '../directory/module.ts';
import { createGraphClient } from './graph.ts';
import { createMicrosoftService, type MicrosoftService } from './service.ts';
import { registerMicrosoftJobs, startMicrosoftScheduler } from './jobs.ts';
import { microsoftRoutes } from './routes.ts';

export type { MicrosoftService };

export function microsoftModule(
  core: Core,
  needs: { secrets: Module<SecretBox>; directory: Module<DirectoryService> },
  opts: { dryRunDeadlineMs?: number | undefined } = {},
): Module<MicrosoftService> {
  const { config, db } = core;
  const microsoft = createMicrosoftService({
    db,
    secrets: needs.secrets.service,
    graph: createGraphClient({ loginUrl: config.microsoft.loginUrl, graphUrl: config.microsoft.graphUrl, clock: core.clock }),
    directory: needs.directory.service,
    clock: core.clock,
    dryRunDeadlineMs: opts.dryRunDeadlineMs,
  });
  const { syncIntervalS } = config.microsoft;
  return {
    name: 'microsoft',
    service: microsoft,
    api: ({ guards, billing }) => [microsoftRoutes({ guards, billing, microsoft })],
    jobs: collectJobs((registry) => registerMicrosoftJobs(registry, microsoft)),
    // Its scheduler runs only beside a job worker (Google's always runs: the two are to become one).
    timers: core.jobWorker
      ? [() => startMicrosoftScheduler({ db, queue: core.queue, logger: core.logger, syncIntervalS, tickMs: Math.min(15_000, syncIntervalS * 1000) })]
      : [],
  };
}
