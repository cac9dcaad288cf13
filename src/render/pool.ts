// The render worker pool: saves, previews and first renders of templates run in worker threads
// (piscina), so no template, however hostile, holds the event loop. Inside the worker a template is
// limited by its own CPU time (compile.ts); here a wall-clock timeout is only the safety net that
// replaces a worker stuck where no check runs, and a memory ceiling ends one that balloons.
import { Piscina } from 'piscina';
import { AppError } from '../kernel/errors.ts';
import { Batcher } from '../store/batcher.ts';
import type { RenderedParts, Scope } from './compile.ts';
import type { Compiled, RenderItem, RenderTask, TaskOutput, TaskResult } from './worker.ts';

export interface RenderPool {
  compile(input: { html: string; text: string }): Promise<Compiled>;
  render(task: { key: string; htmlPrepared: string; text: string; scope: Scope; limitBytes: number }): Promise<RenderedParts>;
  preview(task: { html: string; text: string; scope: Scope; limitBytes: number }): Promise<RenderedParts>;
  /** Starts the threads now, so the first template work does not wait for them to load. */
  warm(): Promise<void>;
  /** The threads running now (idle ones stop after `idleMs`). */
  threads(): number;
  close(): Promise<void>;
}

export interface RenderPoolOptions {
  threads: number;
  /** Wall-clock bound of one task, queueing included: the safety net, far above the CPU limits. */
  timeoutMs?: number;
  /** Tasks that may wait for a thread before the pool answers 503. */
  maxQueue?: number;
  /** A thread with no work for this long stops; the next template work starts one again. 0: they never stop. */
  idleMs?: number;
}

export function createRenderPool(options: RenderPoolOptions): RenderPool {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pool = new Piscina<RenderTask, TaskResult<TaskOutput>>({
    filename: new URL('./worker.ts', import.meta.url).href,
    // Started by warm() (the server, at start) or on the first template work, so processes that
    // never render (the CLI) pay nothing. A thread idle for `idleMs` stops: it is a V8 heap of its
    // own (~30 MB resident), and a service whose renders are answered from the cache (every warm
    // render: the main thread's) rarely needs it. Starting one again takes ~0.2 s, which the next
    // save, preview or first render waits for (BENCHMARKS.md, "Memory").
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: options.idleMs || Number.POSITIVE_INFINITY,
    maxQueue: options.maxQueue ?? 1_000,
    // Well above Liquid's 2 MB memory limit; a worker past it dies alone, and is replaced.
    resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
  });

  async function run<T>(task: RenderTask): Promise<T> {
    let result: TaskResult<TaskOutput>;
    // A plain timer, cleared when the task ends: AbortSignal.timeout() keeps each signal for the
    // garbage collector to finalise, which cost the main thread more than the render did.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      result = await pool.run(task, { signal: abort.signal });
    } catch (err) {
      throw classify(err, task.kind, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    if (!result.ok) throw refusal(result.error);
    return result.value as T;
  }

  // First renders go to the threads in batches: renders asked for while a thread works on a batch
  // go together in its next one. One message per render made each render wait for a thread to be
  // woken and scheduled, which on a busy machine cost more than the render (render-cold fell 5×).
  // One batcher per thread, so every thread has a batch in flight; a batch is at most 16 renders,
  // each under its own CPU limit.
  const batchers = Array.from(
    { length: options.threads },
    () =>
      new Batcher<RenderItem, RenderedParts>(async (items) => {
        let results: TaskResult<RenderedParts>[];
        try {
          results = await run<TaskResult<RenderedParts>[]>({ kind: 'renders', items });
        } catch (err) {
          // The whole batch failed (the safety-net timeout, a thread out of memory): the renders
          // in it may be other orgs'. Each is run again alone, so only the one at fault fails.
          if (items.length === 1) throw err;
          return Promise.all(items.map((item) => renderAlone(item)));
        }
        return results.map((r) => (r.ok ? r : { ok: false, error: refusal(r.error) }));
      }, 16),
  );
  let next = 0;

  async function renderAlone(item: RenderItem): Promise<{ ok: true; value: RenderedParts } | { ok: false; error: unknown }> {
    try {
      const [result] = await run<TaskResult<RenderedParts>[]>({ kind: 'renders', items: [item] });
      return result!.ok ? result! : { ok: false, error: refusal(result!.error) };
    } catch (err) {
      return { ok: false, error: err };
    }
  }

  return {
    compile: (input) => run({ kind: 'compile', html: input.html, text: input.text }),
    render: (task) => batchers[next++ % batchers.length]!.submit(task),
    preview: (task) => run({ kind: 'preview', ...task }),
    async warm() {
      // An empty batch of renders: it loads a thread and its modules and does nothing else (a compile
      // of an empty template made caniemail throw, so every start logged that the threads had not started).
      await Promise.all(Array.from({ length: options.threads }, () => run({ kind: 'renders', items: [] })));
    },
    threads: () => pool.threads.length,
    close: () => pool.close({ force: true }),
  };
}

/**
 * A render thread's verdict on a template (its limits, its output's size): the same template with
 * the same values gets the same one, so the render service may remember it (service.ts). What
 * the pool itself decides (the safety net, a full queue) depends on the moment, and is not one.
 */
export class TemplateRefusal extends AppError {}

function refusal(error: { code: AppError['code']; message: string; details: AppError['details'] }): AppError {
  return new TemplateRefusal(error.code, error.message, error.details ? { details: error.details } : {});
}

function classify(err: unknown, kind: RenderTask['kind'], timeoutMs: number): unknown {
  const e = err as { name?: string; code?: string; message?: string };
  // A render's request sent no html (at most the template's id): its refusal names the template.
  const [field, subject] = kind === 'renders' ? ['templateId', "The template, with this user's values,"] : ['body.html', 'body.html: the template'];
  if (e.name === 'AbortError') {
    return new AppError('BAD_REQUEST', `${subject} took longer than ${timeoutMs / 1000} s to process; simplify it.`, {
      details: { field },
      internal: err,
    });
  }
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new AppError('BAD_REQUEST', `${subject} needs too much memory to process; simplify it.`, { details: { field }, internal: err });
  }
  if (e.message === 'Task queue is at limit') {
    return new AppError('SERVICE_UNAVAILABLE', 'Too many templates are being processed right now; retry shortly.', { internal: err });
  }
  return err;
}
