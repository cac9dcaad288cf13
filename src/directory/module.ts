// Applying a directory's users to an org (Google Workspace and Microsoft Entra syncs): the plan, the seat cap, the runs.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { requireFreeSeat } from '../billing/module.ts';
import { createDirectoryService, type DirectoryService } from './service.ts';

export { type DirectoryUser } from './plan.ts';

export type { DirectoryService };

export function directoryModule(core: Core): Module<DirectoryService> {
  return { name: 'directory', service: createDirectoryService({ db: core.db, invalidate: core.caches.invalidate, seatCheck: requireFreeSeat, clock: core.clock }) };
}
