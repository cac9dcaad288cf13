#!/usr/bin/env node
// Starts the service or a CLI command on Node 24, which the project pins as a dependency (the
// system's Node may be older and unable to run TypeScript directly), with the service's Node
// flags (src/node-flags.json; src/runtime.ts explains them): the CLI opens the same embedded
// database. `npm start` and `npm run cli` come through here too.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const flags = JSON.parse(readFileSync(new URL('../src/node-flags.json', import.meta.url), 'utf8'));
// What glibc reads at start and where Node keeps its compile cache (src/runtime.ts says why); a
// value the operator set wins.
const env = {
  ...JSON.parse(readFileSync(new URL('../src/node-env.json', import.meta.url), 'utf8')),
  NODE_COMPILE_CACHE: fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)),
  ...process.env,
};
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
const args = [...flags, cli, ...process.argv.slice(2)];
if (typeof process.execve === 'function') {
  // This process becomes the service (Node ≥ 23.11 on Linux and macOS): same pid, so signals
  // from a supervisor or the terminal reach it directly, and no launcher stays in memory.
  process.execve(node, [node, ...args], env);
}
// Elsewhere (an older Node, Windows) a child, which gets the stop signals this process receives.
const child = spawn(node, args, { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
