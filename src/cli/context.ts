// What the commands build: the database (migrated) and, on top of it, only the services a
// command calls. Not the service's createDeps, which also builds the identity provider (and
// generates its RSA signing key on an empty database), connects to Redis and starts timers.
import type { Config } from '../config.ts';
import { createLogger, type Logger } from '../log.ts';
import { resolve } from 'node:path';
import { openDatabase, willCreateEmbeddedDatabase, type Database } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { KeyUsageRecorder } from '../api-keys/usage.ts';
import { createApiKeyService } from '../api-keys/service.ts';
import { apiKeysRepo } from '../store/repositories/api-keys.ts';
import { createOrgService, type OrgService } from '../orgs/service.ts';
import { createBillingService, type BillingService } from '../billing/service.ts';
import { uncached } from '../cache/namespaces.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import { createInviter } from '../people/invite.ts';
import { mailOutbox } from '../mail/mailer.ts';
import { systemClock } from '../lib/clock.ts';

export interface CommandContext {
  config: Config;
  /** Warnings and errors of the services, as JSON lines on the command's stderr. */
  logger: Logger;
  passwords?: PasswordHasher | undefined;
  /** A line for the person at the terminal, on stderr (stdout holds only the answer). */
  progress?: ((message: string) => void) | undefined;
}

/** Runs fn with the database, migrated unless told otherwise, and closes it. */
export async function withDatabase<T>(
  ctx: CommandContext,
  fn: (database: Database) => Promise<T>,
  opts: { migrate: boolean } = { migrate: true },
): Promise<T> {
  const creating = willCreateEmbeddedDatabase(ctx.config.databaseUrl, ctx.config.dataDir);
  if (creating) ctx.progress?.(`creating the embedded database in ${resolve(ctx.config.dataDir)} (first run only; this can take a minute)…`);
  const database = await openDatabase({ databaseUrl: ctx.config.databaseUrl, dataDir: ctx.config.dataDir });
  try {
    if (opts.migrate) await migrate(database);
    if (creating) ctx.progress?.('embedded database ready');
    return await fn(database);
  } finally {
    await database.close();
  }
}

/** The org service (and the API-key service it mints the first key with), uncached: one call. */
export async function withOrgs<T>(ctx: CommandContext, fn: (orgs: OrgService) => Promise<T>): Promise<T> {
  return withDatabase(ctx, async ({ db }) => {
    const usage = new KeyUsageRecorder((uses) => apiKeysRepo.touch(db, uses), ctx.logger);
    try {
      const caches = uncached();
      const apiKeys = createApiKeyService({ db, stage: ctx.config.stage, caches, usage, clock: systemClock });
      // An invitation mail is queued when SMTP_URL is set; the running service's worker sends it.
      const invite = createInviter({ mail: mailOutbox(ctx.config.smtpUrl !== undefined), authUrl: ctx.config.authUrl, invitationTtlS: ctx.config.invitationTtlS });
      return await fn(createOrgService({ db, caches, apiKeys, passwords: ctx.passwords, invite }));
    } finally {
      await usage.close();
    }
  });
}

/** The billing service; an org it changes is in no cache of this process. */
export async function withBilling<T>(ctx: CommandContext, fn: (billing: BillingService) => Promise<T>): Promise<T> {
  return withDatabase(ctx, ({ db }) =>
    fn(
      createBillingService({
        db,
        logger: ctx.logger,
        clock: systemClock,
        gracePeriodS: ctx.config.gracePeriodS,
        dedupWindowS: ctx.config.webhookDedupS,
        invalidate: uncached().invalidate,
      }),
    ),
  );
}

export function commandLogger(stderr: { write(chunk: string): unknown }): Logger {
  return createLogger('warn', false, { write: (line: string) => void stderr.write(line) });
}
