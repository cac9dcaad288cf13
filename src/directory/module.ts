// Directories an org connects (Google Workspace, Microsoft Entra, any later one): applying their
// users to an org (the plan, the seat cap, the runs), the sync every connector shares, its jobs and
// the one scheduler. The connectors are their capabilities' (google/, microsoft/): directorySyncModule
// takes them once those modules are built.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { collectJobs } from '../core/module.ts';
import { requireFreeSeat } from '../billing/module.ts';
import { createDirectoryService, type DirectoryService } from './service.ts';
import { createDirectorySync, type DirectorySync } from './sync.ts';
import { createPhotoSync } from './photos.ts';
import type { ImageService } from '../images/module.ts';
import { registerDirectorySyncJobs } from './jobs.ts';
import { startScheduler, syncSchedule, tickMsFor, type Schedule } from './scheduler.ts';
import type { AnyConnector } from './connector.ts';

export type { DirectoryService };
export type { DirectoryUser } from './plan.ts';
export type { DirectoryConnector, DirectoryPhoto, DirectoryPhotos } from './connector.ts';
export { ConnectorError, failureMessage } from './errors.ts';
export type { DirectorySync } from './sync.ts';
export { registerConnectorJob, syncJobKind } from './jobs.ts';
export type { Schedule } from './scheduler.ts';

export type DirectoryModule = Module<DirectoryService> & { sync: DirectorySync };

export function directoryModule(core: Core, needs: { images: ImageService }, opts: { dryRunDeadlineMs?: number | undefined } = {}): DirectoryModule {
  const { db, clock, logger } = core;
  const invalidate = core.caches.invalidate;
  const directory = createDirectoryService({
    db,
    invalidate,
    seatCheck: requireFreeSeat,
    clock,
    releasePhoto: needs.images.releaseAfter,
  });
  const photos = createPhotoSync({ db, images: needs.images, invalidate, clock, logger });
  return { name: 'directory', service: directory, sync: createDirectorySync({ db, directory, photos, dryRunDeadlineMs: opts.dryRunDeadlineMs }) };
}

/**
 * Every connected directory's sync job, and the one scheduler that queues their syncs and the
 * other schedules (Gmail's push): made once every connector's module is built.
 */
export function directorySyncModule(
  core: Core,
  needs: { directory: DirectoryModule; connectors: readonly AnyConnector[]; schedules: readonly Schedule[] },
  opts: { tickMs?: number | undefined } = {},
): Module<undefined> {
  const { db } = core;
  const { connectors } = needs;
  return {
    name: 'directory-sync',
    service: undefined,
    jobs: collectJobs((registry) => registerDirectorySyncJobs({ queue: registry, db, sync: needs.directory.sync, connectors })),
    timers: [
      () =>
        startScheduler({
          db,
          queue: core.queue,
          logger: core.logger,
          schedules: [...connectors.map(syncSchedule), ...needs.schedules],
          tickMs: opts.tickMs ?? tickMsFor(connectors),
        }),
    ],
  };
}
