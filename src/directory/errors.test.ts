// The one conversion of a connector's failure: what the job queue makes of it, what a run leaves
// on the connection, what a dry run answers. Google's and Microsoft's errors go through it alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../kernel/errors.ts';
import { JobFailedError, RetryableJobError } from '../jobs/queue.ts';
import { SecretError } from '../secrets/secret-box.ts';
import { GoogleError } from '../google/errors.ts';
import { MicrosoftError } from '../microsoft/graph.ts';
import { ConnectorError, failureMessage, toDryRunError, toJobError } from './errors.ts';

test("a connector's retryable error is retried later, when the service said; any other fails the job with its message", () => {
  const cases: [ConnectorError, boolean][] = [
    [new GoogleError('transient', 'Google answered 503 4 times in a row.', { retryAfterMs: 1500 }), true],
    [new MicrosoftError('throttled', 'Graph is throttling.', 1500), true],
    [new MicrosoftError('unavailable', 'Microsoft could not be reached.', 1500), true],
    [new GoogleError('delegation', 'Google refused to act for admin@corp.test.'), false],
    [new MicrosoftError('credentials', "Microsoft refused the app's credentials."), false],
    [new ConnectorError('google', 'other', 'Google listed no users at all.'), false],
  ];
  for (const [err, retryable] of cases) {
    assert.ok(err instanceof ConnectorError);
    assert.equal(err.retryable, retryable, err.message);
    const mapped = toJobError(err);
    if (retryable) {
      assert.ok(mapped instanceof RetryableJobError, err.message);
      assert.equal(mapped.retryAfterMs, 1500);
    } else {
      assert.ok(mapped instanceof JobFailedError, err.message);
    }
    assert.equal((mapped as Error).message, err.message);
    assert.equal((mapped as Error).cause, err);
  }
});

test('a secret that does not open and a refusal of ours fail the job with their message; anything else goes on as it is', () => {
  const secret = new SecretError('SECRETS_KEY is not set.');
  assert.ok(toJobError(secret) instanceof JobFailedError);
  const refusal = new AppError('NOT_FOUND', 'Organisation not found.');
  assert.ok(toJobError(refusal) instanceof JobFailedError);
  const internal = new AppError('INTERNAL_ERROR', 'boom');
  assert.equal(toJobError(internal), internal);
  const bug = new TypeError('x is undefined');
  assert.equal(toJobError(bug), bug);
});

test("the connection's last error is the message meant for admins, never an internal one", () => {
  assert.equal(failureMessage(new MicrosoftError('permission', 'Grant User.Read.All.')), 'Grant User.Read.All.');
  assert.equal(failureMessage(new SecretError('The stored secret is damaged.')), 'The stored secret is damaged.');
  assert.equal(failureMessage(new TypeError('x is undefined')), 'Internal error.');
});

test('a dry run that cannot read the directory is a 400 naming the kind under the connector; the rest as it is', () => {
  const google = toDryRunError(new GoogleError('forbidden', 'admin@corp.test may not read the directory.'), 'google');
  assert.ok(google instanceof AppError);
  assert.equal(google.status, 400);
  assert.equal(google.message, 'The directory could not be read: admin@corp.test may not read the directory.');
  assert.deepEqual(google.details, { google: 'forbidden' });
  const secret = toDryRunError(new SecretError('SECRETS_KEY is not set.'), 'microsoft');
  assert.ok(secret instanceof AppError);
  assert.deepEqual(secret.details, { microsoft: 'secret' });
  const late = new AppError('SERVICE_UNAVAILABLE', 'Google did not answer within 1 s.');
  assert.equal(toDryRunError(late, 'google'), late);
});
