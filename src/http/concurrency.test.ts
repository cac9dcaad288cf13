import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conflictAnswer, etagOf, parseIfMatch } from './concurrency.ts';
import { VersionConflict, versionMismatch } from '../store/conditional.ts';
import { AppError } from '../kernel/errors.ts';

test('If-Match names a version, nothing, or none of ours', () => {
  assert.equal(parseIfMatch(undefined), undefined);
  assert.equal(parseIfMatch('*'), undefined);
  assert.equal(parseIfMatch(' "3" '), 3);
  assert.equal(parseIfMatch('W/"12"'), 12);
  assert.ok(Number.isNaN(parseIfMatch('3')));
  assert.ok(Number.isNaN(parseIfMatch('"abc"')));
  assert.equal(parseIfMatch(etagOf(7)), 7);
});

const answer = (current: number, version: number, ifMatch?: number) => {
  const err = versionMismatch('Template', { version: current }, { version, ifMatch });
  assert.ok(err instanceof VersionConflict);
  return conflictAnswer(err);
};

test('a stale body version is 409 CONFLICT with the current version', () => {
  const err = answer(4, 3);
  assert.equal(err.code, 'CONFLICT');
  assert.equal(err.status, 409);
  assert.deepEqual(err.details, { field: 'version', currentVersion: 4 });
  assert.equal(err.message, 'Template has changed: version 3 is not the current version.');
});

test('an If-Match naming the current version leaves a stale body version at 409', () => {
  assert.equal(answer(4, 3, 4).code, 'CONFLICT');
});

test('an If-Match naming another version than the current one is 412', () => {
  for (const ifMatch of [3, 5, Number.NaN]) {
    const err = answer(4, 4, ifMatch);
    assert.equal(err.code, 'PRECONDITION_FAILED', `If-Match ${ifMatch}`);
    assert.equal(err.status, 412);
    assert.deepEqual(err.details, { currentVersion: 4 });
    assert.equal(err.message, 'If-Match does not match the current template.');
  }
  // Both stale: the precondition is judged first.
  assert.equal(answer(4, 3, 3).code, 'PRECONDITION_FAILED');
});

test('a row that is gone is 404 whatever the versions', () => {
  const err = versionMismatch('User', undefined, { version: 1, ifMatch: 2 });
  assert.ok(err instanceof AppError && !(err instanceof VersionConflict));
  assert.equal(err.code, 'NOT_FOUND');
});
