// `npm run test:durations`: copies how long each test file took in the last whole `npm test` on
// this machine (per store, kept in the temp directory by test/run.ts) into test/durations.json,
// which test/run.ts shares files out by on a machine that has not run the suite yet. A store this
// machine has no record of keeps its committed figures.
import { readFileSync, writeFileSync } from 'node:fs';
import { durationsFile } from '../test/helpers/durations-reporter.ts';

const TARGET = new URL('../test/durations.json', import.meta.url);

function read(path: string | URL): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const committed = (read(TARGET) ?? {}) as Record<string, Record<string, number>>;
const result: Record<string, Record<string, number>> = {};
for (const store of ['embedded', 'postgres'] as const) {
  const recorded = read(durationsFile(store)) as Record<string, number> | undefined;
  const seconds = recorded ?? committed[store] ?? {};
  result[store] = Object.fromEntries(
    Object.entries(seconds)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, s]) => [file, Math.round(s * 10) / 10]),
  );
  console.log(`${store}: ${recorded ? `${Object.keys(seconds).length} files from the last run here` : 'no run here: the committed figures kept'}`);
}
writeFileSync(TARGET, `${JSON.stringify(result, null, 1)}\n`);
