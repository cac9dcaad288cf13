// The CLI in this process (its runner takes the streams and the environment), and a store of its
// own for each test. One test per command runs it as a real process (cli.test.ts).
import { runCommand } from '../../src/cli/run.ts';
import { postgresAvailable, scratchDatabase } from './pg.ts';
import { seededDataDir } from './snapshot.ts';
import { testPasswords } from './passwords.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `sigsvc <args>` with exactly the environment given (as runNode gives a spawned process). */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(args, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
    passwords: testPasswords,
  });
  return { code, stdout, stderr };
}

/**
 * A store of the test's own, as CLI environment: a scratch PostgreSQL database when the suite
 * runs on PostgreSQL, else an embedded one in a temp directory (DATA_DIR), already migrated.
 */
export async function isolatedStore(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (await postgresAvailable()) {
    const scratch = await scratchDatabase();
    return { env: { DATABASE_URL: scratch.url }, cleanup: scratch.drop };
  }
  const { dir, cleanup } = await seededDataDir('sigsvc-cli-');
  return { env: { DATA_DIR: dir, DATABASE_URL: '' }, cleanup };
}
