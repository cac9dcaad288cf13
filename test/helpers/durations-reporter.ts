// A test reporter that writes how long each test file's tests took, as JSON ({ "test/x.test.ts":
// seconds }): test/run.ts gives it a file of its own beside each shard's other reporters, and
// shares the next run's files out by these durations (Jest's test sequencer does the same).
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where test/run.ts keeps the last whole run's seconds by file on this machine, per store. */
export const durationsFile = (store: 'embedded' | 'postgres') => join(tmpdir(), `sigsvc-test-durations-${store}.json`);

export default async function* durations(
  source: AsyncIterable<{ type: string; data: { nesting?: number; file?: string; details?: { duration_ms?: number } } }>,
) {
  const seconds: Record<string, number> = {};
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    const file = relative(ROOT, event.data.file);
    seconds[file] = (seconds[file] ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000;
  }
  yield JSON.stringify(seconds);
}
