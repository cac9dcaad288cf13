import type { Logger } from '../log.ts';

/**
 * Runs `task` every `ms` in the background (the timer never keeps the process alive), logging a
 * failure and trying again at the next tick. A tick that comes while the task still runs is
 * skipped, so runs never overlap. Returns what stops it (and waits for a run under way), for the
 * owner's close().
 */
export function every(ms: number, task: () => Promise<unknown>, failure: { logger: Logger; message: string }): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .then(
        () => undefined,
        (err: unknown) => failure.logger.warn({ err }, failure.message),
      )
      .finally(() => {
        running = undefined;
      });
  }, ms).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
