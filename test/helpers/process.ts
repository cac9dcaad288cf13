import { spawn } from 'node:child_process';

export const ROOT = new URL('../../', import.meta.url);

/** Runs a project entry point on this Node (24) and collects its output. */
export function runNode(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
