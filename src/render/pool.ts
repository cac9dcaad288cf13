// The render worker pool: saves, previews and first renders of templates run in worker threads
// (piscina), so no template, however hostile, holds the event loop. Inside the worker a template is
// limited by its own CPU time (compile.ts); here a wall-clock timeout is only the safety net that
// replaces a worker stuck where no check runs, and a memory ceiling ends one that balloons.
import { Piscina } from 'piscina';
import { AppError } from '../kernel/errors.ts';
import { FairQueue } from './fair-queue.ts';
import { refusalSubject } from './refusal.ts';
import type { RenderedParts, Scope } from './compile.ts';
import type { Compiled, RenderItem, RenderTask, TaskOutput, TaskResult } from './worker.ts';

/** Every piece of work names the org it is for: the orgs' work is served in turn (fair-queue.ts). */
export interface RenderPool {
  compile(input: { orgId: string; html: string; text: string }): Promise<Compiled>;
  render(task: { orgId: string; key: string; htmlPrepared: string; text: string; scope: Scope; limitBytes: number }): Promise<RenderedParts>;
  preview(task: { orgId: string; html: string; text: string; scope: Scope; limitBytes: number }): Promise<RenderedParts>;
  /** Starts the threads now, so the first template work does not wait for them to load. */
  warm(): Promise<void>;
  /** The threads running now (idle ones stop after `idleMs`). */
  threads(): number;
  close(): Promise<void>;
}

export interface RenderPoolOptions {
  threads: number;
  /** Wall-clock bound of one task on a thread: the safety net, far above the CPU limits. */
  timeoutMs?: number;
  /** Work that waited this long for its turn is answered 503 rather than started late (default 10 s). */
  maxWaitMs?: number;
  /** Tasks one org may have waiting for a thread before the pool answers that org 503. */
  maxQueue?: number;
  /** A thread with no work for this long stops; the next template work starts one again. 0: they never stop. */
  idleMs?: number;
}

/** CPU time of a render thread after which a batch of renders ends, the rest waiting for their org's next turn. */
export const BATCH_CPU_MS = 25;

/** Work waiting for a thread: a task (a save's compile, a preview) or one render, batched with others. */
interface Waiting {
  task?: Exclude<RenderTask, { kind: 'renders' }>;
  render?: RenderItem;
  queuedAt: number;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

function settle(w: Waiting, r: TaskResult<RenderedParts>): void {
  if (r.ok) w.resolve(r.value);
  else w.reject(refusal(r.error));
}

const tooBusy = () => new AppError('SERVICE_UNAVAILABLE', 'Too many templates are being processed right now; retry shortly.');

export function createRenderPool(options: RenderPoolOptions): RenderPool {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Apart from timeoutMs: a test's 1-ms safety net must not turn every wait for a turn into a 503.
  const maxWaitMs = options.maxWaitMs ?? 10_000;
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

  // Work waits here, one line per org, and goes to a thread in turn (fair-queue.ts): at most one
  // task per thread is in flight, so piscina's own queue (first come, first served) stays empty.
  // First renders go in batches: renders asked for while a thread works go together in their org's
  // next turn. One message per render made each render wait for a thread to be woken and
  // scheduled, which on a busy machine cost more than the render (render-cold fell 5×). A batch is
  // at most 16 renders, and the thread stops one after BATCH_CPU_MS of its CPU time (the rest wait
  // for the org's next turn), so another org waits at most about one render.
  const queue = new FairQueue<Waiting>(options.maxQueue ?? 1_000);
  let inFlight = 0;
  let woken = false;

  function submit<T>(orgId: string, work: Pick<Waiting, 'task' | 'render'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!queue.push(orgId, { ...work, queuedAt: performance.now(), resolve: resolve as (v: unknown) => void, reject })) {
        reject(tooBusy());
        return;
      }
      // In the next turn, after the requests already read in this one: their renders share a batch.
      if (!woken) {
        woken = true;
        setImmediate(() => {
          woken = false;
          dispatch();
        });
      }
    });
  }

  function dispatch(): void {
    while (inFlight < options.threads) {
      const turn = queue.take((first, next) => first.render !== undefined && next.render !== undefined, 16);
      if (!turn) return;
      inFlight++;
      void serve(turn.orgId, turn.items).finally(() => {
        inFlight--;
        dispatch();
      });
    }
  }

  async function serve(orgId: string, taken: Waiting[]): Promise<void> {
    // Work that waited past maxWaitMs for its turn is told to come back, not started late.
    const due = taken.filter((w) => performance.now() - w.queuedAt <= maxWaitMs || (w.reject(tooBusy()), false));
    const first = due[0];
    if (!first) return;
    if (first.task) {
      await run(first.task).then(first.resolve, first.reject);
      return;
    }
    let results: TaskResult<RenderedParts>[];
    try {
      results = await run<TaskResult<RenderedParts>[]>({ kind: 'renders', items: due.map((w) => w.render!), budgetMs: BATCH_CPU_MS });
    } catch (err) {
      // The whole batch failed (the safety-net timeout, a thread out of memory). Each is run again
      // alone, so only the one at fault fails.
      if (due.length === 1) {
        first.reject(err);
        return;
      }
      for (const w of due) await run<TaskResult<RenderedParts>[]>({ kind: 'renders', items: [w.render!] }).then(([r]) => settle(w, r!), w.reject);
      return;
    }
    for (const [i, r] of results.entries()) settle(due[i]!, r);
    if (results.length < due.length) queue.putBack(orgId, due.slice(results.length));
  }

  return {
    compile: ({ orgId, ...input }) => submit(orgId, { task: { kind: 'compile', html: input.html, text: input.text } }),
    render: ({ orgId, ...item }) => submit(orgId, { render: item }),
    preview: ({ orgId, ...task }) => submit(orgId, { task: { kind: 'preview', ...task } }),
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
  const { field, subject, context } = refusalSubject(kind === 'renders' ? 'saved' : 'body', 'html');
  if (e.name === 'AbortError') {
    return new AppError('BAD_REQUEST', `${subject} took longer than ${timeoutMs / 1000} s to process${context}; simplify it.`, {
      details: { field },
      internal: err,
    });
  }
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new AppError('BAD_REQUEST', `${subject} needs too much memory to process${context}; simplify it.`, { details: { field }, internal: err });
  }
  return err;
}
