import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON lines for machines; readable lines when a person watches a terminal. */
export function createLogger(level: string, pretty = process.stdout.isTTY === true): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key'],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  });
}
