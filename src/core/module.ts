// The shape of a capability's module (each folder's module.ts): what it offers the others and the
// HTTP surface, built from the core and the modules it needs, which it is handed explicitly. The
// composition root (deps.ts) lists the modules; app.ts registers their routes; `startModules`
// starts their timers and the job worker, once every module is built.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.ts';
import type { HandlerOptions, JobHandler, JobQueue, JobRegistry } from '../jobs/queue.ts';
import type { RouteKit } from '../http/guard.ts';

export type { RouteKit };

/** Ends what a start function began (a timer, the job worker). */
export type Stop = () => Promise<void>;

/** A job kind's handler and its options. */
export interface JobKind {
  handler: JobHandler<any>;
  options?: HandlerOptions;
}

export interface Module<S = unknown> {
  /** The capability's name, as its folder's. */
  readonly name: string;
  /** What other modules and the routes use. */
  readonly service: S;
  /** Route plugins of the authenticated scope (app.ts authenticates and throttles every request first). */
  api?(kit: RouteKit): FastifyPluginAsync[];
  /** Route plugins outside it (health, sign-in pages, public images, the pixel, webhooks): each brings its own limits. */
  readonly public?: FastifyPluginAsync[];
  /** Job handlers by kind, handed to the queue before its worker starts. */
  readonly jobs?: Record<string, JobKind>;
  /** Background timers: each starts one and answers its stop. Started after every module is built. */
  readonly timers?: (() => Stop)[];
  /** Closes what the module holds (write-behind buffers, pools, transports), after every timer stopped. */
  close?(): Promise<void>;
}

/** The job kinds a register function (google/jobs.ts's, say) hands to a registry, collected by kind. */
export function collectJobs(register: (registry: JobRegistry) => void): Record<string, JobKind> {
  const jobs: Record<string, JobKind> = {};
  register({
    registerHandler(kind, handler, options) {
      if (jobs[kind]) throw new Error(`job kind ${kind} is registered twice`);
      jobs[kind] = { handler: handler as JobHandler<unknown>, ...(options ? { options } : {}) };
    },
  });
  return jobs;
}

/**
 * Hands every module's job handlers to the queue, starts the modules' timers in their order, then
 * the job worker (when this process runs it). Answers the stop of it all, which runs in reverse:
 * the worker first, then the timers from the last started, then each module's close, last first.
 */
export function startModules(modules: readonly Module[], queue: JobQueue, opts: { jobWorker: boolean; logger: Logger }): Stop {
  for (const m of modules) for (const [kind, { handler, options }] of Object.entries(m.jobs ?? {})) queue.registerHandler(kind, handler, options);
  const stops: Stop[] = [];
  for (const m of modules) for (const start of m.timers ?? []) stops.unshift(start());
  if (opts.jobWorker) queue.start();
  stops.unshift(() => queue.stop());
  const closes = modules.flatMap((m) => (m.close ? [m.close.bind(m)] : [])).reverse();
  return async () => {
    for (const stop of [...stops, ...closes]) {
      await stop().catch((err: unknown) => opts.logger.warn({ err }, 'stopping a module'));
    }
  };
}
