// Google Workspace: the connection, the directory sync and signature push jobs, and their scheduler.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { collectJobs } from '../core/module.ts';
import { enqueue } from '../jobs/queue.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DirectoryService } from '../directory/module.ts';
import type { RenderService } from '../render/module.ts';
import type { OrgService } from '../orgs/module.ts';
import { createGoogleClient, type RetryPolicy } from './client.ts';
import { createGoogleService, type GoogleService } from './service.ts';
import { createGoogleRuns, type GoogleRuns } from './runs.ts';
import { createGoogleMetrics } from './metrics.ts';
import { registerGoogleJobs, startGoogleScheduler } from './jobs.ts';
import { googleRoutes } from './routes.ts';

export type { GoogleRuns, GoogleService };

/** Tests: quicker retries of Google's 429/5xx and of a run that finds its org busy, a faster scheduler, fewer pushes at once. */
export interface GoogleTuning {
  retry?: Partial<RetryPolicy>;
  schedulerTickMs?: number;
  pushConcurrency?: number;
  patchesPerSecond?: number;
  busyRetryMs?: number;
  dryRunDeadlineMs?: number | undefined;
}

export type GoogleModule = Module<GoogleService> & { runs: GoogleRuns };

export function googleModule(
  core: Core,
  needs: { secrets: Module<SecretBox>; directory: Module<DirectoryService>; render: Module<RenderService>; orgs: Module<OrgService> },
  tuning: GoogleTuning = {},
): GoogleModule {
  const { config, db } = core;
  const secrets = needs.secrets.service;
  const directory = needs.directory.service;
  const metrics = createGoogleMetrics(core.metrics.registry);
  const client = createGoogleClient({ endpoints: config.google, retry: tuning.retry, patchesPerSecond: tuning.patchesPerSecond, onRequest: metrics.request });
  const runs = createGoogleRuns({
    db,
    secrets,
    client,
    directory,
    render: needs.render.service,
    orgs: needs.orgs.service,
    clock: core.clock,
    pushConcurrency: tuning.pushConcurrency,
    busyRetryMs: tuning.busyRetryMs,
    metrics,
    enqueue,
  });
  const google = createGoogleService({ db, secrets, client, directory, enqueue, syncIntervalS: config.google.syncIntervalS, dryRunDeadlineMs: tuning.dryRunDeadlineMs });
  return {
    name: 'google',
    service: google,
    runs,
    api: ({ guards, billing }) => [googleRoutes({ guards, billing, google })],
    jobs: collectJobs((registry) => registerGoogleJobs(registry, runs, db)),
    timers: [
      () => startGoogleScheduler({ db, queue: core.queue, logger: core.logger, syncIntervalS: config.google.syncIntervalS, tickMs: tuning.schedulerTickMs ?? 10_000 }),
    ],
  };
}
