import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines for machines; readable lines when a person watches a terminal. On stdout unless a
 * destination is given (the CLI logs to stderr: its stdout is the command's JSON answer).
 */
export function createLogger(level: string, pretty = process.stdout.isTTY === true, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // pino's default base: every line carries `pid` and `hostname`, so lines of several instances
    // (or of a restarted one) can be told apart once collected.
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key'],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
