// The job queue is the core's (core/core.ts makes it); this module answers a job's state to the
// org's admins (GET …/jobs/{jobId}). It takes the database rather than the core, which is built
// from this folder: the result is a Module (core/module.ts) by its shape.
import type { Db } from '../store/db.ts';
import type { RouteKit } from '../http/guard.ts';
import { createJobService, type JobService } from './service.ts';
import { jobRoutes } from './routes.ts';

export type { JobService };

export function jobsModule(deps: { db: Db }) {
  const jobs: JobService = createJobService({ db: deps.db });
  return { name: 'jobs', service: jobs, api: ({ guards }: RouteKit) => [jobRoutes({ guards, jobs })] };
}
