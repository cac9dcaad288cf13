// Google Workspace: the connection, its directory connector (the sync is the directory module's),
// and the push of signatures to Gmail (a job, queued by the directory's scheduler).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { collectJobs } from '../core/module.ts';
import { enqueue } from '../jobs/queue.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DirectoryModule, Schedule } from '../directory/module.ts';
import type { RenderService } from '../render/module.ts';
import type { OrgService } from '../orgs/module.ts';
import { createGoogleClient, type RetryPolicy } from './client.ts';
import { createGoogleService, type GoogleService } from './service.ts';
import { createGoogleRuns, type GoogleRuns } from './runs.ts';
import { createGoogleMetrics } from './metrics.ts';
import { createGoogleLease } from './lease.ts';
import { googleConnector, type GoogleConnector } from './connector.ts';
import { pushSchedule, registerGooglePushJob } from './jobs.ts';
import { googleRoutes } from './routes.ts';

export type { GoogleRuns, GoogleService };

/** Tests: quicker retries of Google's 429/5xx and of a run that finds its org busy, fewer pushes at once. */
export interface GoogleTuning {
  retry?: Partial<RetryPolicy>;
  pushConcurrency?: number;
  patchesPerSecond?: number;
  busyRetryMs?: number;
}

export type GoogleModule = Module<GoogleService> & {
  runs: GoogleRuns;
  /** Its directory's connector (the sync is the directory module's). */
  connector: GoogleConnector;
  /** The push of changed signatures, which the directory's scheduler queues. */
  schedule: Schedule;
};

export function googleModule(
  core: Core,
  needs: { secrets: Module<SecretBox>; directory: DirectoryModule; render: Module<RenderService>; orgs: Module<OrgService> },
  tuning: GoogleTuning = {},
): GoogleModule {
  const { config, db, clock } = core;
  const secrets = needs.secrets.service;
  const metrics = createGoogleMetrics(core.metrics.registry);
  const client = createGoogleClient({ endpoints: config.google, retry: tuning.retry, patchesPerSecond: tuning.patchesPerSecond, onRequest: metrics.request });
  const lease = createGoogleLease({ db, enqueue, clock, busyRetryMs: tuning.busyRetryMs });
  const { syncIntervalS } = config.google;
  const connector = googleConnector({ db, secrets, client, enqueue, lease, syncIntervalS });
  const runs = createGoogleRuns({
    db,
    secrets,
    client,
    render: needs.render.service,
    orgs: needs.orgs.service,
    clock,
    pushConcurrency: tuning.pushConcurrency,
    metrics,
    lease,
  });
  const { service: directory, sync } = needs.directory;
  const google = createGoogleService({ db, secrets, client, directory, sync, connector, enqueue, syncIntervalS });
  return {
    name: 'google',
    service: google,
    runs,
    connector,
    schedule: pushSchedule(clock),
    api: ({ guards, billing }) => [googleRoutes({ guards, billing, google })],
    jobs: collectJobs((registry) => registerGooglePushJob({ queue: registry, db, runs })),
  };
}
