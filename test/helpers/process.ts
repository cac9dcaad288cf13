import { spawn } from 'node:child_process';
import { SERVICE_NODE_ENV, SERVICE_NODE_FLAGS } from '../../src/runtime.ts';

export const ROOT = new URL('../../', import.meta.url);

/** Runs a project entry point on this Node (24) and collects its output. */
export function runNode(
  args: string[],
  env: Record<string, string | undefined>,
  // Safety nets only, sized for a 2-core machine that other work keeps busy (a process that
  // creates an embedded database took over a minute there).
  timeoutMs = 110_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...args], {
      cwd: ROOT,
      env: { ...SERVICE_NODE_ENV, ...cleanEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment minus the service's own variables, so a test states exactly what it sets. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|PORT|HOST|STAGE|DATA_DIR|NODE_TEST_CONTEXT)$/.test(k)) env[k] = v;
  }
  return env;
}

export interface ServiceProcess {
  url: string;
  pid: number | undefined;
  stop: () => Promise<void>;
  output: () => string;
  /** The process's exit code, once it exited (null when a signal ended it). */
  exit: Promise<number | null>;
}

/**
 * Starts the real service (`node src/main.ts`), or another server script, as its own process on
 * `port`, and waits until `ready` (a path) answers 2xx: at any LOG_LEVEL.
 */
export async function startProcess(
  env: Record<string, string>,
  port: number,
  opts: { script?: string; args?: string[]; ready?: string } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, opts.script ?? 'src/main.ts', ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { ...SERVICE_NODE_ENV, ...cleanEnv(), LOG_LEVEL: 'info', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 110_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`service did not start:\n${out}`);
    if (
      await fetch(url + (opts.ready ?? '/health')).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid,
    output: () => out,
    exit: exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
