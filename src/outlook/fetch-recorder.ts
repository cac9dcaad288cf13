// What the add-in's fetches left for each user (their `outlook` deployment), written off the request
// path (src/lib/throttled-writes.ts): a user's first fetch on this instance, or one with another
// outcome, is written at once; the same again at most once a minute; several users in one write.
import type { Logger } from '../log.ts';
import type { AddinFetchWrite } from '../store/repositories/outlook.ts';
import { ThrottledWrites } from '../lib/throttled-writes.ts';
import { deploymentWrite, type DeploymentOutcome } from '../deployments/module.ts';
import { outlookTarget } from './addin-target.ts';

/** What one fetch of the add-in came to for a user: their signature served, or refused and why. */
export interface AddinFetch {
  orgId: string;
  userId: string;
  at: Date;
  outcome: DeploymentOutcome;
}

export class FetchRecorder {
  readonly #writes: ThrottledWrites<AddinFetchWrite>;

  constructor(write: (fetches: AddinFetchWrite[]) => Promise<void>, logger: Logger) {
    this.#writes = new ThrottledWrites(write, (err, fetches) => logger.warn({ err, fetches }, 'could not record add-in fetches'));
  }

  record(fetch: AddinFetch): void {
    const deployment = deploymentWrite(outlookTarget.name, fetch.orgId, fetch.userId, fetch.outcome, fetch.at);
    this.#writes.record(`${fetch.orgId}:${fetch.userId}`, { at: fetch.at, deployment }, fetch.at.getTime(), JSON.stringify(fetch.outcome));
  }

  close(): Promise<void> {
    return this.#writes.close();
  }
}
