// The command line as an operator meets it: errors that name the option and what was given, and
// a first `org create` that says on stderr that it is building the embedded database (the slow
// part of a first run) while stdout stays one JSON document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './helpers/cli.ts';

// Refused before any database is opened: this directory is never created.
const nowhere = { DATA_DIR: join(tmpdir(), 'sigsvc-never-created'), DATABASE_URL: '' };

test('option errors name the option and the value given', async () => {
  const cases: [string[], RegExp][] = [
    [['--name', 'Acme', '--owner-email', 'a@acme.test', '--seats', 'abc'], /^sigsvc org create: --seats: expected a whole number, got "abc"$/m],
    [['--name', 'Acme', '--owner-email', 'a@acme.test', '--seats', '2.5'], /--seats: expected a whole number, got "2\.5"/],
    [['--name', 'Acme', '--owner-email', 'a@acme.test', '--seats', '99999999'], /--seats: expected at most 1000000, got "99999999"/],
    [['--name', 'Acme', '--owner-email', 'not-an-email'], /--owner-email: expected an email address, got "not-an-email"/],
    [['--owner-email', 'a@acme.test'], /--name: is required/],
    [['--name', '  ', '--owner-email', 'a@acme.test'], /--name: must not be empty/],
    [['--name', 'Acme'], /--owner-email: is required/],
    [['--name', 'Acme', '--owner-email', 'a@acme.test', '--owner-password', 'short'], /--owner-password: must have at least 12 characters/],
  ];
  for (const [args, expected] of cases) {
    const res = await runCli(['org', 'create', ...args], nowhere);
    assert.equal(res.code, 2, args.join(' '));
    assert.match(res.stderr, expected, res.stderr);
    assert.match(res.stderr, /usage: sigsvc org create/);
    assert.equal(res.stdout, '');
  }
  // Two at once: both named.
  const both = await runCli(['org', 'create', '--seats', 'x', '--owner-email', 'y'], nowhere);
  assert.match(both.stderr, /--name: is required; --seats: expected a whole number, got "x"; --owner-email: expected an email address, got "y"/);
  const staff = await runCli(['staff', 'create', '--email', 'ops', '--password', 'a long staff password'], nowhere);
  assert.match(staff.stderr, /--email: expected an email address, got "ops"/);
  // The password itself never appears in a message.
  const secret = await runCli(['staff', 'create', '--email', 'ops@x.test', '--password', 'shhh'], nowhere);
  assert.match(secret.stderr, /--password: must have at least 12 characters/);
  assert.ok(!secret.stderr.includes('shhh'));
});

test('the first org create says on stderr that it builds the embedded database; stdout is one JSON document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigsvc-first-run-'));
  try {
    const env = { DATA_DIR: dir, DATABASE_URL: '' };
    const first = await runCli(['org', 'create', '--name', 'Acme', '--owner-email', 'boss@acme.test'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /^sigsvc org create: creating the embedded database in .*sigsvc-first-run-.* \(first run only; this can take a minute\)…$/m);
    assert.match(first.stderr, /^sigsvc org create: embedded database ready$/m);
    const out = JSON.parse(first.stdout) as { orgId: string; apiKey: { key: string } };
    assert.match(out.apiKey.key, /^svc_dev_/);

    const second = await runCli(['org', 'create', '--name', 'Beta', '--owner-email', 'boss@beta.test'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stderr, '', 'nothing to say once the database exists');
    assert.ok(JSON.parse(second.stdout).orgId);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
