// `sigsvc <command>`: every command prints one JSON document on stdout; a failure prints a clear
// message on stderr and exits non-zero (docs/operations.md, "The command line"). The runner takes its
// output streams and environment as arguments, so the tests run commands in their own process.
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import { findSecretsKey } from '../secrets/module.ts';
import { migrate } from '../store/migrate.ts';
import { UsageError } from './errors.ts';
import type { PasswordHasher } from '../lib/passwords.ts';
import { commandLogger, withDatabase, type CommandContext } from './context.ts';
import { eventsReplay, orgCreate } from './org-commands.ts';
import { keysRotate, staffCreate } from './identity-commands.ts';
import { secretsRekey } from './secrets-commands.ts';

export interface CliIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
  /** The password hashing (the tests' in-process runs hash at a lower cost); scrypt at full cost by default. */
  passwords?: PasswordHasher;
}

type Command = (args: string[], ctx: CommandContext) => Promise<unknown>;

const commands: Record<string, { usage: string; run: Command }> = {
  migrate: {
    usage: 'sigsvc migrate',
    run: (args, ctx) => {
      options(args, {});
      return withDatabase(ctx, async (database) => ({ ...(await migrate(database)), database: database.description }), { migrate: false });
    },
  },
  'org create': {
    usage: 'sigsvc org create --name NAME [--seats N] [--plan PLAN] --owner-email EMAIL [--owner-name NAME] [--owner-password PW]',
    run: (args, ctx) =>
      orgCreate(
        options(args, {
          name: { type: 'string' },
          seats: { type: 'string' },
          plan: { type: 'string' },
          'owner-email': { type: 'string' },
          'owner-name': { type: 'string' },
          'owner-password': { type: 'string' },
        }),
        ctx,
      ),
  },
  'staff create': {
    usage: 'sigsvc staff create --email EMAIL --password PW',
    run: (args, ctx) => staffCreate(options(args, { email: { type: 'string' }, password: { type: 'string' } }), ctx),
  },
  'keys rotate': {
    usage: 'sigsvc keys rotate',
    run: (args, ctx) => keysRotate(options(args, {}), ctx),
  },
  'secrets rekey': {
    usage: 'sigsvc secrets rekey [--dry-run]',
    run: (args, ctx) => secretsRekey(options(args, { 'dry-run': { type: 'boolean' } }), ctx),
  },
  'events replay': {
    usage: 'sigsvc events replay [--id EVENT_ID]',
    run: (args, ctx) => eventsReplay(options(args, { id: { type: 'string' } }), ctx),
  },
};

export const USAGE = ['usage:', '  sigsvc serve', '  sigsvc gateway', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');

/** Parses `--flag value` options of a command, refusing unknown ones. */
export function options<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Runs one command (not `serve`, which main.ts starts) and returns its exit code. */
export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === '--help' || first === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return first ? 0 : 2;
  }
  // Two-word commands ("org create") before one-word ones ("migrate").
  const twoWords = second ? `${first} ${second}` : undefined;
  const [name, args] = twoWords && commands[twoWords] ? [twoWords, rest] : [first, second ? [second, ...rest] : rest];
  const command = commands[name];
  if (!command) {
    io.stderr.write(`sigsvc: unknown command "${name}"\n${USAGE}\n`);
    return 2;
  }
  try {
    const ctx = {
      config: withStoredSecretsKey(loadConfig(io.env)),
      logger: commandLogger(io.stderr),
      passwords: io.passwords,
      progress: (message: string) => void io.stderr.write(`sigsvc ${name}: ${message}\n`),
    };
    const result = await command.run(args, ctx);
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UsageError) {
      io.stderr.write(`sigsvc ${name}: ${err.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    io.stderr.write(`sigsvc ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/**
 * The service's SECRETS_KEY: the environment's, else the key file the service made in DATA_DIR
 * (read only: a command never makes one, so a wrong DATA_DIR leaves no key behind that nobody uses).
 */
function withStoredSecretsKey(config: Config): Config {
  return { ...config, secretsKey: findSecretsKey(config, { create: false }).key };
}
