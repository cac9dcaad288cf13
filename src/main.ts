// config → dependencies → app → listen; a graceful stop on SIGTERM/SIGINT.
import { loadConfig, ConfigError, redactUrlPassword, type Config } from './config.ts';
import { createLogger } from './log.ts';
import { createDeps } from './deps.ts';
import { buildApp } from './app.ts';
import { DatabaseUnavailableError } from './store/errors.ts';
import { postgresDescription } from './store/postgres.ts';

/** A start-up failure whose message says it all (no stack trace helps the operator). */
class StartupError extends Error {}

export async function serve(): Promise<void> {
  let config;
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
  const deps = await createDeps(config, logger).catch((err: unknown) => {
    throw err instanceof DatabaseUnavailableError ? databaseAway(config, err) : err;
  });
  // The render threads load while the server starts, not on the first signature asked for.
  deps.render.warm().catch((err: unknown) => logger.warn({ err }, 'render threads did not start; they will on first use'));
  const app = await buildApp(deps);

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

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    { listen: `http://${config.host}:${port}`, docs: `${config.baseUrl}/docs`, database: deps.database.description, redis: config.redisUrl ? 'on' : 'off' },
    `listening on http://${config.host}:${port}; API reference at ${config.baseUrl}/docs; database: ${deps.database.description}`,
  );
}

function databaseAway(config: Config, err: DatabaseUnavailableError): StartupError {
  const where = config.databaseUrl?.startsWith('postgres') ? postgresDescription(config.databaseUrl) : 'embedded PostgreSQL';
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new StartupError(`the database (${where}) is ${err.reason === 'timeout' ? 'not answering' : 'unreachable'}: ${why}`);
}

if (import.meta.main) {
  serve().catch((err) => {
    const message = err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err);
    // Whatever failed, a URL in the message keeps its password to itself.
    process.stderr.write(`failed to start: ${redactUrlPassword(message ?? String(err))}\n`);
    process.exit(1);
  });
}
