import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeStep, fieldProblem, newPasswordStep, nextStep, passwordStep, TOO_MANY, type AccountState, type Pending } from './steps.ts';

const account = (over: Partial<AccountState> = {}): AccountState => ({ id: 'acc-1', passwordMustChange: false, totpSecret: null, ...over });
/** A check that records whether it ran, answering `answer`. */
function checkAnswering<T>(answer: T) {
  const calls: string[][] = [];
  return {
    calls,
    check: async (...args: string[]) => {
      calls.push(args);
      return answer;
    },
  };
}

test('next step: a new password first, then the code, then done; enrolment only where required', () => {
  assert.deepEqual(nextStep(undefined, ['pwd'], false), { kind: 'gone' });
  assert.deepEqual(nextStep(account(), ['pwd'], false), { kind: 'done', accountId: 'acc-1', amr: ['pwd'] });
  assert.deepEqual(nextStep(account(), ['pwd'], true), { kind: 'pending', pending: { accountId: 'acc-1', step: 'enrol', amr: ['pwd'] } });
  assert.deepEqual(nextStep(account({ totpSecret: 'S' }), ['pwd'], false), { kind: 'pending', pending: { accountId: 'acc-1', step: 'otp', amr: ['pwd'] } });
  const temporary = account({ passwordMustChange: true, totpSecret: 'S' });
  assert.deepEqual(nextStep(temporary, ['pwd'], false), { kind: 'pending', pending: { accountId: 'acc-1', step: 'new-password', amr: ['pwd'] } });
  assert.deepEqual(nextStep(temporary, ['pwd', 'otp'], true).kind, 'pending', 'a code does not skip a forced new password');
  assert.deepEqual(nextStep(account({ totpSecret: 'S' }), ['pwd', 'otp'], true), { kind: 'done', accountId: 'acc-1', amr: ['pwd', 'otp'] });
});

test('password step: a throttled or refused form checks nothing; a wrong password is 401 with the address kept', async () => {
  const none = checkAnswering<AccountState | undefined>(account());
  const throttled = await passwordStep({ username: ' ada@example.test ', password: 'pw', throttled: true }, none.check);
  assert.deepEqual(throttled, { kind: 'refused', status: 429, error: TOO_MANY, email: 'ada@example.test' });
  const nul = await passwordStep({ username: 'a\0b@example.test', password: 'pw', throttled: false }, none.check);
  assert.equal(nul.kind === 'refused' && nul.status, 400);
  assert.equal(nul.email, '', 'a refused value is not shown back');
  const array = await passwordStep({ username: ['x'], password: 'pw', throttled: false }, none.check);
  assert.equal(array.kind === 'refused' && array.status, 400);
  assert.equal((await passwordStep({ username: 'x@example.test', password: 'p'.repeat(2000), throttled: false }, none.check)).kind, 'refused');
  assert.equal(none.calls.length, 0, 'no guess was made');

  const wrong = checkAnswering<AccountState | undefined>(undefined);
  assert.deepEqual(await passwordStep({ username: 'ada@example.test', password: 'nope', throttled: false }, wrong.check), {
    kind: 'refused',
    status: 401,
    error: 'Incorrect email or password.',
    email: 'ada@example.test',
  });
  assert.deepEqual(wrong.calls, [['ada@example.test', 'nope']]);
  const blank = checkAnswering<AccountState | undefined>(account());
  assert.equal((await passwordStep({ username: '   ', password: 'pw', throttled: false }, blank.check)).kind, 'refused', 'no address, no check');
  assert.equal(blank.calls.length, 0);
});

test('password step: the right password passes with amr pwd', async () => {
  const right = checkAnswering<AccountState | undefined>(account({ id: 'acc-9' }));
  assert.deepEqual(await passwordStep({ username: 'ada@example.test', password: 'pw', throttled: false }, right.check), {
    kind: 'passed',
    accountId: 'acc-9',
    amr: ['pwd'],
    email: 'ada@example.test',
  });
});

test('code step: throttled and malformed codes are no guesses; a right code adds otp', async () => {
  const pending: Pending = { accountId: 'acc-1', step: 'otp', amr: ['pwd'] };
  const ok = checkAnswering<AccountState | undefined>(account());
  assert.deepEqual(await codeStep({ pending, code: '123456', throttled: true }, ok.check), { kind: 'refused', status: 429, error: TOO_MANY });
  assert.equal((await codeStep({ pending, code: '12\u000034', throttled: false }, ok.check)).kind, 'refused');
  assert.equal(ok.calls.length, 0);
  assert.deepEqual(await codeStep({ pending, code: '123456', throttled: false }, ok.check), { kind: 'passed', accountId: 'acc-1', amr: ['pwd', 'otp'] });
  assert.deepEqual(ok.calls, [['acc-1', '123456']]);
  const wrong = checkAnswering<AccountState | undefined>(undefined);
  const refused = await codeStep({ pending, code: '000000', throttled: false }, wrong.check);
  assert.equal(refused.kind === 'refused' && refused.status, 401);
  const enrol = await codeStep({ pending: { ...pending, step: 'enrol' }, code: '000000', throttled: false }, wrong.check);
  assert.match(enrol.kind === 'refused' ? enrol.error : '', /Check the app/);
});

test('new-password step: the service says why a password is refused; a change keeps amr', async () => {
  const pending: Pending = { accountId: 'acc-1', step: 'new-password', amr: ['pwd'] };
  const short = checkAnswering<AccountState | string>('The password needs at least 12 characters.');
  assert.deepEqual(await newPasswordStep({ pending, password: 'short' }, short.check), {
    kind: 'refused',
    status: 400,
    error: 'The password needs at least 12 characters.',
  });
  const changed = checkAnswering<AccountState | string>(account());
  assert.deepEqual(await newPasswordStep({ pending, password: 'a long new password' }, changed.check), { kind: 'passed', accountId: 'acc-1', amr: ['pwd'] });
  const nul = checkAnswering<AccountState | string>(account());
  assert.equal((await newPasswordStep({ pending, password: 'pass\0word' }, nul.check)).kind, 'refused');
  assert.equal(nul.calls.length, 0);
});

test('form values: strings without NULs, at most 1,024 characters', () => {
  assert.equal(fieldProblem(undefined), undefined);
  assert.equal(fieldProblem('fine'), undefined);
  assert.match(fieldProblem(42) ?? '', /not filled in/);
  assert.match(fieldProblem('a\0b') ?? '', /not allowed/);
  assert.match(fieldProblem('x'.repeat(1025)) ?? '', /too long/);
});
