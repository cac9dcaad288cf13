// The body of a render worker thread (pool.ts starts them through piscina): every save, preview and
// first render of a template runs here, so a hostile template spends this thread's time, never the
// event loop that answers everyone else.
import { LRUCache } from 'lru-cache';
import { AppError, type ErrorCode, type ErrorDetails } from '../kernel/errors.ts';
import { coarseThreadCpuMs, compileTemplate, parseSaved, renderSignature, threadCpuMs, type Parsed, type RenderedParts, type Scope } from './compile.ts';

// liquidjs enforces its render limit against `performance.now()` and has no option for another
// clock; in this thread nothing else reads it, so it becomes the thread's CPU time (to within 1 ms,
// see coarseThreadCpuMs). A template then gets the same 100 ms of its own work however busy the
// machine is.
Object.defineProperty(globalThis, 'performance', { value: { now: coarseThreadCpuMs }, configurable: true, writable: true });

export type RenderItem = { key: string; htmlPrepared: string; text: string; scope: Scope; limitBytes: number };

export type RenderTask =
  | { kind: 'compile'; html: string; text: string }
  | { kind: 'renders'; items: RenderItem[]; budgetMs?: number }
  | { kind: 'preview'; html: string; text: string; scope: Scope; limitBytes: number };

export type Compiled = { htmlPrepared: string; warnings: string[] };

export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string; details: ErrorDetails | undefined } };

// Parsed templates of this thread, by template id and version (a version never changes).
const parsed = new LRUCache<string, Parsed>({ max: 2_000 });

async function renderOne(item: RenderItem): Promise<RenderedParts> {
  let p = parsed.get(item.key);
  if (!p) {
    p = parseSaved(item);
    parsed.set(item.key, p);
  }
  return renderSignature(p, item.scope, item.limitBytes, 'saved');
}

async function run(task: RenderTask): Promise<Compiled | RenderedParts | TaskResult<RenderedParts>[]> {
  switch (task.kind) {
    case 'compile': {
      const { htmlPrepared, warnings, sampleWarnings } = await compileTemplate(task);
      return { htmlPrepared, warnings: [...warnings, ...sampleWarnings] };
    }
    case 'renders': {
      // Past the budget the batch ends: the pool puts the renders left back in their org's line,
      // so other orgs' work is not held behind them (fair-queue.ts). The first is always done.
      const started = threadCpuMs();
      const results: TaskResult<RenderedParts>[] = [];
      for (const item of task.items) {
        results.push(await settle(() => renderOne(item)));
        if (task.budgetMs !== undefined && threadCpuMs() - started >= task.budgetMs) break;
      }
      return results;
    }
    case 'preview': {
      const compiled = await compileTemplate(task);
      // The user's own render warns in place of the sample person's.
      const result = await renderSignature(compiled.parsed, task.scope, task.limitBytes, 'body');
      return { ...result, warnings: [...compiled.warnings, ...result.warnings] };
    }
  }
}

/** Expected refusals come back as values (an Error loses its code crossing threads); bugs throw. */
async function settle<T>(work: () => Promise<T>): Promise<TaskResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message, details: err.details } };
    throw err;
  }
}

export type TaskOutput = Compiled | RenderedParts | TaskResult<RenderedParts>[];

export default function handle(task: RenderTask): Promise<TaskResult<TaskOutput>> {
  return settle(() => run(task));
}
