// The people capability's job on the durable queue (src/jobs/queue.ts): the lookup behind
// "Forgot your password?", queued by the page (page-routes.ts) and run by the worker.
import type { JobRegistry } from '../jobs/queue.ts';
import { RESET_REQUEST_JOB, type PeopleService } from './service.ts';

export function registerPeopleJobs(queue: JobRegistry, people: Pick<PeopleService, 'requestReset'>): void {
  // The payload is an address someone typed: forgotten once the job ended, as a mail's is.
  queue.registerHandler<{ email: string }>(RESET_REQUEST_JOB, async (job) => people.requestReset(job.payload.email), { maxAttempts: 5, forgetPayload: true });
}
