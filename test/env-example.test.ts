// .env.example lists every variable src/config.ts reads, each with its default: a variable added
// to the config without an entry here fails this test, and so does an entry whose value is not the
// default, or one for a variable the config no longer reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { envSchema, loadConfig } from '../src/config.ts';

const text = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
const entries = new Map<string, string>();
for (const line of text.split('\n')) {
  const m = /^#\s?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
  if (!m) continue;
  assert.ok(!entries.has(m[1] as string), `${m[1]} appears twice`);
  entries.set(m[1] as string, m[2] as string);
}
const shape = envSchema.in.shape as Record<string, z.ZodType>;

test('.env.example names every configuration variable, and only those', () => {
  const missing = Object.keys(shape).filter((name) => !entries.has(name));
  assert.deepEqual(missing, [], `add to .env.example: ${missing.join(', ')}`);
  const stale = [...entries.keys()].filter((name) => !(name in shape));
  assert.deepEqual(stale, [], `.env.example names variables the config does not read: ${stale.join(', ')}`);
});

test("each entry shows the variable's default (empty: no default of its own)", () => {
  for (const [name, shown] of entries) {
    const schema = shape[name];
    if (!schema) continue;
    const unset = schema.safeParse(undefined);
    assert.ok(unset.success, `${name} must be optional`);
    const documented = schema.safeParse(shown === '' ? undefined : shown);
    assert.ok(documented.success, `${name}=${shown} is not a valid value`);
    assert.deepEqual(documented.data, unset.data, `${name}: .env.example shows ${JSON.stringify(shown)}, the default is ${JSON.stringify(unset.data)}`);
    if (shown === '') {
      const empty = unset.data;
      assert.ok(empty === undefined || (Array.isArray(empty) && empty.length === 0), `${name} has a default (${JSON.stringify(empty)}): show it`);
    }
  }
});

test('the file, uncommented as it is, is a valid configuration equal to the defaults', () => {
  const env = Object.fromEntries([...entries].filter(([, v]) => v !== ''));
  assert.deepEqual(loadConfig(env), loadConfig({}));
});
