import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findSecretsKey, SECRETS_KEY_FILE } from './key-file.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'sigsvc-key-file-'));

test('embedded, no SECRETS_KEY: made once into DATA_DIR/secrets.key (0600), then read back; the CLI only reads it', () => {
  const root = scratch();
  try {
    const dataDir = join(root, 'data'); // not there yet: made with the key
    const settings = { databaseUrl: undefined, dataDir, secretsKey: undefined };
    assert.deepEqual(findSecretsKey(settings, { create: false }), { key: undefined, source: 'none', file: join(dataDir, SECRETS_KEY_FILE) });

    const made = findSecretsKey(settings, { create: true });
    assert.equal(made.source, 'generated');
    assert.equal(made.key?.length, 32);
    const file = join(dataDir, SECRETS_KEY_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), made.key?.toString('base64'));

    for (const create of [true, false]) {
      const again = findSecretsKey(settings, { create });
      assert.equal(again.source, 'file');
      assert.ok(again.key?.equals(made.key as Buffer), 'the same key');
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('SECRETS_KEY set wins over the file; memory:// gets a key of its own; a PostgreSQL server gets none', () => {
  const dataDir = scratch();
  try {
    const key = randomBytes(32);
    const set = findSecretsKey({ databaseUrl: undefined, dataDir, secretsKey: key }, { create: true });
    assert.deepEqual([set.source, set.key], ['environment', key]);
    assert.throws(() => statSync(join(dataDir, SECRETS_KEY_FILE)), /ENOENT/, 'no file made when the variable is set');

    const memory = findSecretsKey({ databaseUrl: 'memory://', dataDir, secretsKey: undefined }, { create: true });
    assert.equal(memory.source, 'memory');
    assert.equal(memory.key?.length, 32);
    assert.ok(!memory.key?.equals(findSecretsKey({ databaseUrl: 'memory://', dataDir, secretsKey: undefined }, { create: true }).key as Buffer));

    const pg = findSecretsKey({ databaseUrl: 'postgres://db/x', dataDir, secretsKey: undefined }, { create: true });
    assert.deepEqual(pg, { key: undefined, source: 'none', file: undefined });
    assert.throws(() => statSync(join(dataDir, SECRETS_KEY_FILE)), /ENOENT/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a damaged key file is refused naming the file, never replaced', () => {
  const dataDir = scratch();
  try {
    const file = join(dataDir, SECRETS_KEY_FILE);
    writeFileSync(file, 'not a key\n', { mode: 0o600 });
    assert.throws(
      () => findSecretsKey({ databaseUrl: undefined, dataDir, secretsKey: undefined }, { create: true }),
      (err: Error) => err.message.startsWith(`${file}: must be 32 random bytes`),
    );
    assert.equal(readFileSync(file, 'utf8'), 'not a key\n');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
