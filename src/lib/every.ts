import type { Logger } from '../log.ts';

/**
 * Runs `task` every `ms` in the background (the timer never keeps the process alive), logging a
 * failure and trying again at the next tick. Returns what stops it, for the owner's close().
 */
export function every(ms: number, task: () => Promise<unknown>, failure: { logger: Logger; message: string }): () => Promise<void> {
  const timer = setInterval(() => {
    task().catch((err: unknown) => failure.logger.warn({ err }, failure.message));
  }, ms).unref();
  return async () => clearInterval(timer);
}
