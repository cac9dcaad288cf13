// Where SECRETS_KEY comes from when the environment does not set it. The embedded default runs
// every integration out of the box (docs/configuration.md, "SECRETS_KEY"): with the embedded
// database the key is made once into DATA_DIR/secrets.key (mode 0600), beside the data it opens,
// and read from there afterwards, by the service and the CLI alike; with `memory://` it lives in
// memory for the process (so does everything it seals). On a PostgreSQL server the instances must
// share one key, which no instance can make for the others: there it stays the operator's to set.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseSecretsKey } from '../lib/secrets-key.ts';

export const SECRETS_KEY_FILE = 'secrets.key';

export type SecretsKeySource =
  /** SECRETS_KEY is set. */
  | 'environment'
  /** Read from DATA_DIR/secrets.key. */
  | 'file'
  /** Made just now into DATA_DIR/secrets.key. */
  | 'generated'
  /** `memory://`: made for this process. */
  | 'memory'
  /** None: a PostgreSQL server without SECRETS_KEY, or a CLI command before the service made the file. */
  | 'none';

export interface SecretsKeySettings {
  databaseUrl: string | undefined;
  dataDir: string;
  secretsKey: Buffer | undefined;
}

export interface FoundSecretsKey {
  key: Buffer | undefined;
  source: SecretsKeySource;
  /** The key file, for the embedded database (whether or not it was used). */
  file: string | undefined;
}

/**
 * The key to seal with. `create`: the service makes the file when it is missing; the CLI only
 * reads it, so that a command run with the wrong DATA_DIR never leaves a key nobody uses.
 */
export function findSecretsKey(settings: SecretsKeySettings, opts: { create: boolean }): FoundSecretsKey {
  const embedded = settings.databaseUrl === undefined;
  const file = embedded ? join(resolve(settings.dataDir), SECRETS_KEY_FILE) : undefined;
  if (settings.secretsKey) return { key: settings.secretsKey, source: 'environment', file };
  if (settings.databaseUrl?.startsWith('memory:')) return { key: randomBytes(32), source: 'memory', file };
  if (!file) return { key: undefined, source: 'none', file };
  const stored = readKeyFile(file);
  if (stored) return { key: stored, source: 'file', file };
  if (!opts.create) return { key: undefined, source: 'none', file };
  mkdirSync(resolve(settings.dataDir), { recursive: true });
  const key = randomBytes(32);
  try {
    // `wx`: another process (a second service refused by the database lock, a CLI) may be making
    // it at the same moment; the first file written wins and everyone reads that one.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readKeyFile(file), source: 'file', file };
  }
  return { key, source: 'generated', file };
}

function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return parseSecretsKey(text);
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** What the service logs, once, when it made the key. */
export function generatedKeyAdvice(file: string): string {
  return (
    `SECRETS_KEY is not set, so a key was generated into ${file} (mode 0600): the integrations' secrets are sealed under it. ` +
    'Back it up with the data directory, or set its content as SECRETS_KEY: what was sealed under it cannot be read without it.'
  );
}
