// `npm run openapi`: writes the OpenAPI document the service serves to docs/openapi.json (the
// committed contract; test/openapi.test.ts fails when the served one differs), then regenerates the
// API client's types from it (`npm run openapi:types`, also run at `npm install`).
//
// The app is built with a fixed configuration, so the file does not depend on who runs the script:
// an in-memory database and BASE_URL `http://localhost:3000` (the default of `PORT`). The only part
// of the document that follows the configuration is `servers` (BASE_URL).
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { createDeps } from '../src/deps.ts';
import { buildApp } from '../src/app.ts';

export const DOCUMENT_BASE_URL = 'http://localhost:3000';
const ROOT = new URL('../', import.meta.url);

/** The document as `npm run openapi` writes it: two-space JSON and a final newline. */
export function serialise(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

async function main(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: 'memory://', BASE_URL: DOCUMENT_BASE_URL, LOG_LEVEL: 'silent', RENDER_THREADS: '1' });
  const deps = await createDeps(config, createLogger('silent', false));
  try {
    const app = await buildApp(deps);
    await app.ready();
    writeFileSync(new URL('docs/openapi.json', ROOT), serialise(app.swagger()));
    await app.close();
  } finally {
    await deps.close();
  }
  process.stdout.write('wrote docs/openapi.json\n');
  const types = spawnSync('npm', ['run', '--silent', 'openapi:types'], { cwd: ROOT, stdio: 'inherit' });
  if (types.status !== 0) process.exit(types.status ?? 1);
}

if (import.meta.main) await main();
