// The request's logger (`request.log`), made when a line is first written. Fastify gives every
// request a child of the service's logger bound to its correlation id, and pino's `child()` serializes
// the bindings at once, through the redaction: ~1 KB and ~0.7 µs a request in the benchmarks. Below
// `info` (LOG_LEVEL=warn, as the bench runs) most requests write no line at all; at `info` every
// request writes one (http/request-log.ts) and the child is made for it, as before. Hand-written:
// Fastify's `childLoggerFactory` is the hook for this, and pino has no lazy child.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LogFn } from 'pino';
import type { Logger } from '../log.ts';

class LazyChild {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): Logger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }

  /** The logger a line of `level` goes to, or undefined when no line would be written. */
  #to(level: Level): Logger | undefined {
    if (this.#child) return this.#child;
    return this.#parent.isLevelEnabled(level) ? this.#real() : undefined;
  }

  // Methods on the prototype, not per-instance closures: one object per request is the point.
  fatal(...args: Parameters<LogFn>): void {
    this.#to('fatal')?.fatal(...args);
  }
  error(...args: Parameters<LogFn>): void {
    this.#to('error')?.error(...args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.#to('warn')?.warn(...args);
  }
  info(...args: Parameters<LogFn>): void {
    this.#to('info')?.info(...args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.#to('debug')?.debug(...args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.#to('trace')?.trace(...args);
  }
  silent(): void {}

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options) as FastifyBaseLogger;
  }
}

/**
 * Fastify's `childLoggerFactory`: a lazy child unless the route sets options of its own (Fastify
 * passes a route's `logLevel` and `logSerializers`, nothing else).
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new LazyChild(logger as Logger, bindings) as unknown as FastifyBaseLogger;
}
