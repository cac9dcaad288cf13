import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSecretBox, parseSecretsKey, SecretError } from './secret-box.ts';
import { AppError } from '../kernel/errors.ts';

const key = randomBytes(32);

test('seals and opens; each seal uses a fresh IV; the plaintext is not in the output', () => {
  const box = createSecretBox(key);
  const secret = '-----BEGIN PRIVATE KEY-----\nMIIEv…\n-----END PRIVATE KEY-----\n';
  const a = box.seal(secret, 'google:org-1');
  const b = box.seal(secret, 'google:org-1');
  assert.notEqual(a, b);
  assert.match(a, /^v1\.[\w-]{11}\.[\w-]{16}\.[\w-]+$/);
  assert.ok(!a.includes('PRIVATE'));
  assert.equal(box.open(a, 'google:org-1'), secret);
  assert.equal(box.open(b, 'google:org-1'), secret);
});

test('a value sealed for another context, tampered with, or under another key is refused', () => {
  const box = createSecretBox(key);
  const sealed = box.seal('s3cret', 'google:org-1');
  assert.throws(() => box.open(sealed, 'google:org-2'), SecretError);
  const parts = sealed.split('.');
  const body = Buffer.from(parts[3]!, 'base64url');
  body[0]! ^= 1;
  assert.throws(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'google:org-1'), SecretError);
  assert.throws(() => createSecretBox(randomBytes(32)).open(sealed, 'google:org-1'), /another SECRETS_KEY/);
  assert.throws(() => box.open('v2.x.y.z', 'google:org-1'), /format/);
});

test('without SECRETS_KEY nothing is sealed: 503 naming the variable and how to make one', () => {
  const box = createSecretBox(undefined);
  assert.equal(box.available, false);
  assert.throws(
    () => box.seal('s3cret', 'c'),
    (err: unknown) =>
      err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE' && /SECRETS_KEY/.test(err.message) && /openssl rand -base64 32/.test(err.message),
  );
});

test('SECRETS_KEY must be base64 of exactly 32 bytes', () => {
  assert.deepEqual(parseSecretsKey(key.toString('base64')), key);
  assert.throws(() => parseSecretsKey(randomBytes(16).toString('base64')), /32 random bytes.*openssl rand -base64 32/);
  assert.throws(() => parseSecretsKey('not base64 at all!!'), /32 random bytes/);
});

test('rotation: values sealed under a previous key open; new ones are sealed under SECRETS_KEY only', () => {
  const [old, older, next] = [randomBytes(32), randomBytes(32), randomBytes(32)];
  const underOld = createSecretBox(old).seal('s3cret', 'google:org-1');
  const underOlder = createSecretBox(older).seal('older', 'outlook:org-2');
  const box = createSecretBox(next, [old, older]);
  assert.equal(box.open(underOld, 'google:org-1'), 's3cret');
  assert.equal(box.open(underOlder, 'outlook:org-2'), 'older');
  // The context is still bound in under a previous key.
  assert.throws(() => box.open(underOld, 'google:org-2'), /does not authenticate/);
  const fresh = box.seal('new', 'google:org-1');
  assert.equal(fresh.split('.')[1], box.keyId);
  assert.notEqual(box.keyId, createSecretBox(old).keyId);
  // Only the new key opens what it sealed: the old keys alone do not.
  assert.throws(() => createSecretBox(old).open(fresh, 'google:org-1'), /another SECRETS_KEY/);
  assert.equal(createSecretBox(next).open(fresh, 'google:org-1'), 'new');
  // Without the previous key, the old value is refused with a message naming both variables.
  assert.throws(
    () => createSecretBox(next).open(underOld, 'google:org-1'),
    (err: unknown) => err instanceof SecretError && /SECRETS_KEY_PREVIOUS/.test(err.message),
  );
});

test('reseal: a value under a previous key comes back under SECRETS_KEY; one under SECRETS_KEY is left (null); one that opens under no key throws', () => {
  const [old, next] = [randomBytes(32), randomBytes(32)];
  const underOld = createSecretBox(old).seal('s3cret', 'microsoft:org-1');
  const box = createSecretBox(next, [old]);
  const resealed = box.reseal(underOld, 'microsoft:org-1');
  assert.ok(resealed);
  assert.equal(resealed.split('.')[1], box.keyId);
  assert.equal(createSecretBox(next).open(resealed, 'microsoft:org-1'), 's3cret');
  assert.equal(box.reseal(resealed, 'microsoft:org-1'), null);
  assert.throws(() => box.reseal(createSecretBox(randomBytes(32)).seal('x', 'c'), 'c'), SecretError);
  // A value under SECRETS_KEY that does not authenticate is not "already current".
  const parts = resealed.split('.');
  const body = Buffer.from(parts[3]!, 'base64url');
  body[0]! ^= 1;
  assert.throws(() => box.reseal([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'microsoft:org-1'), /does not authenticate/);
  assert.throws(() => createSecretBox(undefined, [old]).reseal(underOld, 'microsoft:org-1'), /SECRETS_KEY is not set/);
});
