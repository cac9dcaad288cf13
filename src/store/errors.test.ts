import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyDatabaseError, withoutValues } from './errors.ts';
import { redactUrlPassword } from '../config.ts';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('database failures: the server or the link is the problem (503), or the statement is (left alone)', () => {
  const cases: [unknown, ReturnType<typeof classifyDatabaseError>][] = [
    [pgError('57P01', 'terminating connection due to administrator command'), { reason: 'unreachable', discard: true }],
    [pgError('08006'), { reason: 'unreachable', discard: true }],
    [pgError('53300', 'too many connections'), { reason: 'unreachable', discard: true }],
    [pgError('25006', 'cannot execute INSERT in a read-only transaction'), { reason: 'unreachable', discard: true }],
    [pgError('57014', 'canceling statement due to statement timeout'), { reason: 'timeout', discard: false }],
    [pgError('55P03', 'canceling statement due to lock timeout'), { reason: 'timeout', discard: false }],
    [pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), { reason: 'unreachable', discard: true }],
    [new Error('Connection terminated unexpectedly'), { reason: 'unreachable', discard: true }],
    [new Error('Query read timeout'), { reason: 'timeout', discard: true }],
    [new Error('timeout exceeded when trying to connect'), { reason: 'timeout', discard: true }],
    [new Error('Client has encountered a connection error and is not queryable'), { reason: 'unreachable', discard: true }],
    [pgError('23505', 'duplicate key value violates unique constraint'), undefined],
    [pgError('22P02', 'invalid input syntax for type uuid'), undefined],
    [new TypeError('Cannot read properties of undefined'), undefined],
    ['a string', undefined],
  ];
  for (const [err, expected] of cases) assert.deepEqual(classifyDatabaseError(err), expected, String((err as Error).message ?? err));
});

test('withoutValues drops parameters and details that quote row values, and keeps what locates the failure', () => {
  const err = Object.assign(new Error('new row violates check constraint "c"'), {
    code: '23514',
    constraint: 'c',
    detail: 'Failing row contains (1, $argon2id$hash).',
    params: ['$argon2id$hash'],
    queryOptions: {},
    query: 'insert into t values ($1, $2)',
  });
  const out = withoutValues(err) as unknown as Record<string, unknown>;
  assert.equal(out.params, undefined);
  assert.equal(out.queryOptions, undefined);
  assert.equal(out.detail, '[values withheld]');
  assert.equal(out.code, '23514');
  assert.equal(out.constraint, 'c');
  assert.equal(out.query, 'insert into t values ($1, $2)');
});

test('redactUrlPassword hides the password of every URL in a text, whatever it contains', () => {
  assert.equal(redactUrlPassword('postgres://app:s3cr@t/x@db:5432/sig'), 'postgres://app:***@db:5432/sig');
  assert.equal(redactUrlPassword('redis://:pw@cache:6379 and rediss://u:p@h'), 'redis://:***@cache:6379 and rediss://u:***@h');
  assert.equal(redactUrlPassword('postgres://app@db/sig'), 'postgres://app@db/sig');
});
