import { spawn } from 'node:child_process';
import { SERVICE_NODE_FLAGS } from '../../src/runtime.ts';

export const ROOT = new URL('../../', import.meta.url);

/** Runs a project entry point on this Node (24) and collects its output. */
export function runNode(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...args], { cwd: ROOT, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  stop: () => Promise<void>;
  output: () => string;
}

/** Starts the real service (`node src/main.ts`) as its own process and waits until it listens. */
export async function startProcess(env: Record<string, string>, port: number): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, 'src/main.ts'], {
    cwd: ROOT,
    env: { ...cleanEnv(), LOG_LEVEL: 'info', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 60_000);
    const check = () => {
      if (out.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
