// The body of a render worker thread (pool.ts starts them through piscina): every save, preview and
// first render of a template runs here, so a hostile template spends this thread's time, never the
// event loop that answers everyone else.
import { LRUCache } from 'lru-cache';
import { AppError, type ErrorCode, type ErrorDetails } from '../http/errors.ts';
import { compileTemplate, parseSaved, renderSignature, threadCpuMs, type Parsed, type RenderedParts, type Scope } from './compile.ts';

// liquidjs enforces its render limit against `performance.now()` and has no option for another
// clock; in this thread nothing else reads it, so it becomes the thread's CPU time. A template then
// gets the same 100 ms of its own work however busy the machine is.
Object.defineProperty(globalThis, 'performance', { value: { now: threadCpuMs }, configurable: true, writable: true });

export type RenderTask =
  | { kind: 'compile'; html: string; text: string }
  | { kind: 'render'; key: string; htmlPrepared: string; text: string; scope: Scope; limitBytes: number }
  | { kind: 'preview'; html: string; text: string; scope: Scope; limitBytes: number };

export type Compiled = { htmlPrepared: string; warnings: string[] };

export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string; details: ErrorDetails | undefined } };

// Parsed templates of this thread, by template id and version (a version never changes).
const parsed = new LRUCache<string, Parsed>({ max: 2_000 });

async function run(task: RenderTask): Promise<Compiled | RenderedParts> {
  switch (task.kind) {
    case 'compile': {
      const { htmlPrepared, warnings } = await compileTemplate(task);
      return { htmlPrepared, warnings };
    }
    case 'render': {
      let p = parsed.get(task.key);
      if (!p) {
        p = parseSaved(task);
        parsed.set(task.key, p);
      }
      return renderSignature(p, task.scope, task.limitBytes);
    }
    case 'preview': {
      const compiled = await compileTemplate(task);
      const result = await renderSignature(compiled.parsed, task.scope, task.limitBytes);
      return { ...result, warnings: [...compiled.warnings, ...result.warnings] };
    }
  }
}

/** Expected refusals come back as values (an Error loses its code crossing threads); bugs throw. */
export default async function handle(task: RenderTask): Promise<TaskResult<Compiled | RenderedParts>> {
  try {
    return { ok: true, value: await run(task) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message, details: err.details } };
    throw err;
  }
}
