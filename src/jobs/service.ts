// Reading a job's state (the queue itself is queue.ts).
import type { Db } from '../store/db.ts';
import { notFound } from '../kernel/errors.ts';
import { jobsRepo } from '../store/repositories/jobs.ts';
import { toJob, type Job } from './resource.ts';

export function createJobService(deps: { db: Db }) {
  return {
    /** One of the org's jobs; another org's job id is a 404 like an unknown one. */
    async get(orgId: string, jobId: string): Promise<Job> {
      const row = await jobsRepo.find(deps.db, orgId, jobId);
      if (!row) throw notFound('Job');
      return toJob(row);
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
