// The identity provider's expired sessions, codes and tokens stay in the database until purged:
// oidc-provider asks its adapter for a row by id and ignores an expired one, but never deletes it.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { every } from '../lib/every.ts';

const PURGE_EVERY_MS = 600_000;

/** Purges rows expired by `clock` every 10 minutes; returns what stops it. */
export function startPurgingExpired(deps: { db: Db; logger: Logger; clock: () => Date }): () => Promise<void> {
  return every(PURGE_EVERY_MS, () => oidcRepo.purgeExpired(deps.db, deps.clock()), {
    logger: deps.logger,
    message: 'purging expired identity-provider rows failed',
  });
}
