// config → dependencies → app → listen; a graceful stop on SIGTERM/SIGINT.
import { flushCompileCache } from 'node:module';
import { loadConfig, ConfigError, redactUrlPassword, type Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { createDeps } from './deps.ts';
import { buildApp } from './app.ts';
import { DatabaseUnavailableError } from './store/errors.ts';
import { DataDirInUseError } from './store/data-dir-lock.ts';
import { postgresDescription } from './store/postgres-url.ts';
import { findSecretsKey, generatedKeyAdvice } from './secrets/module.ts';

/** A start-up failure whose message says it all (no stack trace helps the operator). */
class StartupError extends Error {}

/** `api`: the HTTP service (and the SMTP gateway too when GATEWAY_PORT is set); `gateway`: the gateway alone (`sigsvc gateway`). */
export async function serve(mode: 'api' | 'gateway' = 'api'): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  config = withSecretsKey(config, logger);
  const deps = await createDeps(config, logger).catch((err: unknown) => {
    throw err instanceof DatabaseUnavailableError ? databaseAway(config, err) : err;
  });
  // The render threads load while the server starts, not on the first signature asked for.
  deps.render.warm().catch((err: unknown) => logger.warn({ err }, 'render threads did not start; they will on first use'));
  const app = await buildApp(deps);
  const runGateway = mode === 'gateway' || config.gateway.port !== undefined;
  let gateway: { close(): Promise<void> } | undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new connections, finishing requests in flight');
    const force = setTimeout(() => {
      logger.error('requests still in flight after 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    try {
      await gateway?.close();
      await app.close();
      await deps.close();
      clearTimeout(force);
      logger.info('stopped');
      logger.flush();
    } catch (err) {
      logger.error({ err }, 'error while stopping');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  followNpmOut(() => void stop('npm exited'));

  if (runGateway) gateway = await deps.gateway.listen();
  if (mode === 'gateway') return;
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Every module the service loads at start is loaded now: into Node's compile cache with them
  // (when NODE_COMPILE_CACHE is set, src/runtime.ts), not only when the process ends, which a
  // service killed without the chance to end would never do.
  flushCompileCache();
  logger.info(
    { listen: `http://${config.host}:${port}`, docs: `${config.baseUrl}/docs`, database: deps.database.description, redis: config.redisUrl ? 'on' : 'off' },
    `listening on http://${config.host}:${port}; API reference at ${config.baseUrl}/docs; database: ${deps.database.description}`,
  );
}

/**
 * Under npm (`npm start`, `npx sigsvc serve`) the service is the child of the `sh -c` npm runs
 * scripts with. A supervisor stops npm with SIGTERM; npm passes it to that shell, which dies of it
 * without passing it on, and the service would be left running, orphaned, holding the port and
 * the embedded database's lock. So, under npm only, the service stops (gracefully, as on SIGTERM)
 * when its parent is gone: the kernel then gives it another parent. A service started directly
 * (`bin/sigsvc.mjs serve`, systemd, a container) keeps its parent's choice: `nohup`
 * and the like work as usual.
 */
function followNpmOut(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop();
  }, 250);
  watch.unref();
}

/**
 * Without SECRETS_KEY: the embedded database's key file (made and logged on the first start), or
 * with `memory://` a key of this process; a PostgreSQL server's instances need the one they share.
 */
function withSecretsKey(config: Config, logger: Logger): Config {
  let found: ReturnType<typeof findSecretsKey>;
  try {
    found = findSecretsKey(config, { create: true });
  } catch (err) {
    throw new StartupError(`SECRETS_KEY: ${(err as Error).message}`);
  }
  if (found.source === 'generated' && found.file) logger.warn({ file: found.file }, generatedKeyAdvice(found.file));
  return { ...config, secretsKey: found.key };
}

function databaseAway(config: Config, err: DatabaseUnavailableError): StartupError {
  const where = config.databaseUrl?.startsWith('postgres') ? postgresDescription(config.databaseUrl) : 'embedded PostgreSQL';
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new StartupError(`the database (${where}) is ${err.reason === 'timeout' ? 'not answering' : 'unreachable'}: ${why}`);
}

/** What `failed to start:` says: a message alone when it says it all, else the stack. */
export function startupFailure(err: unknown): string {
  // A failure whose message says it all (the database away, the data directory in use by
  // another process) is printed alone; anything else with its stack.
  const plain = err instanceof StartupError || err instanceof DataDirInUseError;
  const message = plain ? err.message : err instanceof Error ? err.stack : String(err);
  // Whatever failed, a URL in the message keeps its password to itself.
  return `failed to start: ${redactUrlPassword(message ?? String(err))}\n`;
}

if (import.meta.main) {
  serve().catch((err) => {
    process.stderr.write(startupFailure(err));
    process.exit(1);
  });
}
