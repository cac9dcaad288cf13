// What the commands build: the core (cli's one-shot kind: the database, migrated unless told
// otherwise, no Redis, no caches, no worker) and, on top of it, only the modules a command calls,
// made by the same module.ts functions as the service's (deps.ts). Not the service's createDeps,
// which also builds the identity provider (and generates its RSA signing key on an empty database),
// connects to Redis and starts timers.
import type { Config } from '../config.ts';
import { createLogger, type Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import type { PasswordHasher } from '../lib/passwords.ts';
import { createCore, type Core } from '../core/core.ts';
import { apiKeysModule } from '../api-keys/module.ts';
import { orgsModule, type OrgService } from '../orgs/module.ts';
import { billingModule, type BillingService } from '../billing/module.ts';
import { inviterOf } from '../people/module.ts';
import { mailOutbox } from '../mail/module.ts';
import { DEFAULT_STARTER } from '../templates/module.ts';

export interface CommandContext {
  config: Config;
  /** Warnings and errors of the services, as JSON lines on the command's stderr. */
  logger: Logger;
  passwords?: PasswordHasher | undefined;
  /** A line for the person at the terminal, on stderr (stdout holds only the answer). */
  progress?: ((message: string) => void) | undefined;
}

/** Runs fn with the one-shot core, its database migrated unless told otherwise, and closes it. */
export async function withCore<T>(ctx: CommandContext, fn: (core: Core) => Promise<T>, opts: { migrate: boolean } = { migrate: true }): Promise<T> {
  const core = await createCore(ctx.config, ctx.logger, { oneShot: true, passwords: ctx.passwords, progress: ctx.progress, migrate: opts.migrate });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

/** Runs fn with the database, migrated unless told otherwise, and closes it. */
export function withDatabase<T>(ctx: CommandContext, fn: (database: Database) => Promise<T>, opts: { migrate: boolean } = { migrate: true }): Promise<T> {
  return withCore(ctx, (core) => fn(core.database), opts);
}

/** The org module's service (with the API-key module it mints the first key with), uncached, and billing's: one call. */
async function withOrgModules<T>(ctx: CommandContext, fn: (modules: { orgs: OrgService; billing: BillingService }) => Promise<T>): Promise<T> {
  return withCore(ctx, async (core) => {
    const apiKeys = apiKeysModule(core);
    try {
      // An invitation mail is queued when SMTP_URL is set; the running service's worker sends it.
      const invite = inviterOf(core, mailOutbox(ctx.config.smtpUrl !== undefined));
      const orgs = orgsModule(core, { apiKeys, invite, starter: DEFAULT_STARTER });
      return await fn({ orgs: orgs.service, billing: billingModule(core, { orgs }).service });
    } finally {
      await apiKeys.close?.();
    }
  });
}

/** The org service, uncached: one call. */
export function withOrgs<T>(ctx: CommandContext, fn: (orgs: OrgService) => Promise<T>): Promise<T> {
  return withOrgModules(ctx, ({ orgs }) => fn(orgs));
}

/** The billing service; an org it changes is in no cache of this process. */
export function withBilling<T>(ctx: CommandContext, fn: (billing: BillingService) => Promise<T>): Promise<T> {
  return withOrgModules(ctx, ({ billing }) => fn(billing));
}

export function commandLogger(stderr: { write(chunk: string): unknown }): Logger {
  return createLogger('warn', false, { write: (line: string) => void stderr.write(line) });
}
