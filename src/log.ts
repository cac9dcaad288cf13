import pino, { type Logger } from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js';

export type { Logger };

/**
 * JSON lines for machines; readable lines when a person watches a terminal. On stdout unless a
 * destination is given (the CLI logs to stderr: its stdout is the command's JSON answer).
 */
export function createLogger(level: string, pretty = process.stdout.isTTY === true, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key'],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify makes a child logger per request to bind the correlation id, and pino's child() costs
 * a few microseconds on every request (its bindings go through the redaction serializer) though
 * most requests never log at the configured level. This child is made on the first log call that
 * would be written instead. Fastify's `childLoggerFactory` is the documented hook for this; no
 * library does it lazily. A route-level log level or serializer gets a real child at once.
 */
export const lazyChildLogger: FastifyChildLoggerFactory = (logger, bindings, opts) => {
  if (opts.level || opts.serializers) return logger.child(bindings, opts);
  return new LazyChild(logger as Logger, bindings) as unknown as FastifyBaseLogger;
};

class LazyChild {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: pino.Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #log(level: LevelName, args: unknown[]): void {
    if (!this.#parent.isLevelEnabled(level)) return;
    this.#child ??= this.#parent.child(this.#bindings);
    (this.#child[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#parent.level;
  }
  get msgPrefix(): string | undefined {
    return this.#parent.msgPrefix;
  }
  isLevelEnabled(level: string): boolean {
    return this.#parent.isLevelEnabled(level);
  }
  child(bindings: pino.Bindings, opts?: pino.ChildLoggerOptions): Logger {
    return this.#parent.child({ ...this.#bindings, ...bindings }, opts);
  }
  bindings(): pino.Bindings {
    return { ...this.#parent.bindings(), ...this.#bindings };
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}
}
