#!/usr/bin/env node
// Runs the CLI on Node 24, which the project pins as a dependency: the system's Node may be older
// and unable to run TypeScript directly.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
let node = process.execPath;
if (major < 24) {
  try {
    node = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    process.stderr.write('sigsvc: Node 24 is required; run `npm install` in the project first.\n');
    process.exit(1);
  }
}
// The service's Node flags (src/runtime.ts, which explains them) apply to every command: the CLI
// opens the same embedded database.
const SERVICE_NODE_FLAGS = ['--liftoff-only', '--max-semi-space-size=8', '--heap-growing-percent=20'];
const result = spawnSync(node, [...SERVICE_NODE_FLAGS, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
