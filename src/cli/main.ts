// `sigsvc <command>`: every command prints one JSON document on stdout; a failure prints a clear
// message on stderr and exits non-zero (DECISIONS.md, "Command line").
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import { openDatabase } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { serve } from '../main.ts';
import { UsageError } from './errors.ts';
import { orgCreate, withDeps } from './org-commands.ts';
import { keysRotate, staffCreate } from './identity-commands.ts';


type Command = (args: string[], config: Config) => Promise<unknown>;

const commands: Record<string, { usage: string; run: Command }> = {
  migrate: {
    usage: 'sigsvc migrate',
    async run(_args, config) {
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const result = await migrate(database);
        return { ...result, database: database.description };
      } finally {
        await database.close();
      }
    },
  },
};

commands['org create'] = {
  usage: 'sigsvc org create --name NAME [--seats N] [--plan PLAN] --owner-email EMAIL [--owner-name NAME] [--owner-password PW]',
  run: (args, config) =>
    orgCreate(
      options(args, {
        name: { type: 'string' },
        seats: { type: 'string' },
        plan: { type: 'string' },
        'owner-email': { type: 'string' },
        'owner-name': { type: 'string' },
        'owner-password': { type: 'string' },
      }),
      config,
    ),
};

commands['staff create'] = {
  usage: 'sigsvc staff create --email EMAIL --password PW',
  run: (args, config) => staffCreate(options(args, { email: { type: 'string' }, password: { type: 'string' } }), config),
};

commands['keys rotate'] = {
  usage: 'sigsvc keys rotate',
  run: (args, config) => keysRotate(options(args, {}), config),
};

commands['events replay'] = {
  usage: 'sigsvc events replay [--id EVENT_ID]',
  run: async (args, config) => {
    const { id } = options(args, { id: { type: 'string' } });
    const results = await withDeps(config, (deps) => deps.billing.replay(id));
    if (id && results.length === 0) throw new UsageError(`no stored event ${id}`);
    return { replayed: results };
  },
};

const USAGE = ['usage:', '  sigsvc serve', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');

/** Parses `--flag value` options of a command, refusing unknown ones. */
export function options<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === 'serve') {
    await serve();
    return 0;
  }
  if (!first || first === '--help' || first === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return first ? 0 : 2;
  }
  // Two-word commands ("org create") before one-word ones ("migrate").
  const twoWords = second ? `${first} ${second}` : undefined;
  const [name, args] = twoWords && commands[twoWords] ? [twoWords, rest] : [first, second ? [second, ...rest] : rest];
  const command = commands[name];
  if (!command) {
    process.stderr.write(`sigsvc: unknown command "${name}"\n${USAGE}\n`);
    return 2;
  }
  try {
    const config = loadConfig();
    const result = await command.run(args, config);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UsageError) {
      process.stderr.write(`sigsvc ${name}: ${err.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    process.stderr.write(`sigsvc ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      if (process.argv[2] !== 'serve') process.exit(code);
    },
    (err) => {
      process.stderr.write(`sigsvc: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
