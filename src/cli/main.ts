// The `sigsvc` process: `serve` starts the service; every other command runs through the
// runner (run.ts) on this process' streams and environment.
import { runCommand } from './run.ts';

export async function runCli(argv: string[]): Promise<number> {
  if (argv[0] === 'serve' || argv[0] === 'gateway') {
    // Loaded only here: the other commands need neither the HTTP server nor the identity provider.
    const { serve, startupFailure } = await import('../main.ts');
    try {
      await serve(argv[0] === 'gateway' ? 'gateway' : 'api');
    } catch (err) {
      process.stderr.write(startupFailure(err));
      return 1;
    }
    return 0;
  }
  return runCommand(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env });
}

if (import.meta.main) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      // A running service exits when it stops; one that failed to start exits now.
      if ((process.argv[2] !== 'serve' && process.argv[2] !== 'gateway') || code !== 0) process.exit(code);
    },
    (err) => {
      process.stderr.write(`sigsvc: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
