// The steps of a sign-in (password, then as the account needs: a new password, TOTP enrolment, a
// TOTP code) as small functions: the form and the state of the interaction in, an outcome out. They
// decide; the pages (interactions.ts) read the interaction, call them, and show what they answer.
// The checks themselves (hashes, codes, writes) are the sign-in service's (sign-in.ts), passed in.
import { isStorable } from '../lib/text.ts';

export type PendingStep = 'otp' | 'enrol' | 'new-password';

/** A step in progress, kept in the interaction itself (never in `login`), so no URL skips it. */
export interface Pending {
  accountId: string;
  step: PendingStep;
  amr: string[];
}

/** What the next step depends on: an account's state. */
export interface AccountState {
  id: string;
  passwordMustChange: boolean;
  totpSecret: string | null;
}

/** The same page again, saying why (a wrong value, a refused form, too many attempts). */
export type Refused = { kind: 'refused'; status: 400 | 401 | 429; error: string };
/** The step passed: the account, and how it proved itself so far. */
export type Passed = { kind: 'passed'; accountId: string; amr: string[] };
export type StepOutcome = Refused | Passed;

/** After a step passed: the end of the sign-in, another step, or an account that went away. */
export type Next = { kind: 'done'; accountId: string; amr: string[] } | { kind: 'pending'; pending: Pending } | { kind: 'gone' };

export const TOO_MANY = 'Too many attempts from your network. Wait a minute and try again.';

/** Longest value a form field may carry (an email is at most 254; passwords are capped like this by most services). */
export const MAX_FIELD = 1024;

/** Why a form value is refused, or undefined: a string without NULs (the database refuses them), of sane length. */
export function fieldProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return 'The form was not filled in as expected.';
  if (!isStorable(value)) return 'The form holds characters that are not allowed.';
  if (value.length > MAX_FIELD) return 'A field of the form is too long.';
  return undefined;
}

const refused = (status: Refused['status'], error: string): Refused => ({ kind: 'refused', status, error });

/**
 * The step that follows one that passed. A TOTP code ends the sign-in unless the password must
 * still change; otherwise the account's state decides (`mfaRequired`: the admin client's staff).
 */
export function nextStep(account: AccountState | undefined, amr: string[], mfaRequired: boolean): Next {
  if (!account) return { kind: 'gone' };
  let step: PendingStep | 'done';
  if (account.passwordMustChange) step = 'new-password';
  else if (amr.includes('otp')) step = 'done';
  else if (account.totpSecret) step = 'otp';
  else step = mfaRequired ? 'enrol' : 'done';
  if (step === 'done') return { kind: 'done', accountId: account.id, amr };
  return { kind: 'pending', pending: { accountId: account.id, step, amr } };
}

/**
 * The password step. A throttled attempt and a refused form check nothing (they are no guesses);
 * `check` answers the account whose password this is (the service counts a wrong one).
 */
export async function passwordStep(
  input: { username: unknown; password: unknown; throttled: boolean },
  check: (email: string, password: string) => Promise<AccountState | undefined>,
): Promise<StepOutcome & { email: string }> {
  const problem = fieldProblem(input.username) ?? fieldProblem(input.password);
  const email = problem ? '' : String(input.username ?? '').trim();
  if (input.throttled) return { ...refused(429, TOO_MANY), email };
  if (problem) return { ...refused(400, problem), email };
  const account = email ? await check(email, String(input.password ?? '')) : undefined;
  if (!account) return { ...refused(401, 'Incorrect email or password.'), email };
  return { kind: 'passed', accountId: account.id, amr: ['pwd'], email };
}

/**
 * A TOTP code: the one of an enrolled app (`otp`) or the first of a new enrolment (`enrol`); both
 * take from the address's sign-in bucket, as the password step does.
 */
export async function codeStep(
  input: { pending: Pending; code: unknown; throttled: boolean },
  check: (accountId: string, code: string) => Promise<AccountState | undefined>,
): Promise<StepOutcome> {
  if (input.throttled) return refused(429, TOO_MANY);
  const problem = fieldProblem(input.code);
  if (problem) return refused(400, problem);
  const account = await check(input.pending.accountId, String(input.code ?? ''));
  if (!account) {
    const error = input.pending.step === 'enrol' ? 'That code is not valid. Check the app and try again.' : 'That code is not valid. Try the current one.';
    return refused(401, error);
  }
  return { kind: 'passed', accountId: account.id, amr: [...input.pending.amr, 'otp'] };
}

/** The forced new password after a temporary one: `change` answers the account, or why the password is refused. */
export async function newPasswordStep(
  input: { pending: Pending; password: unknown },
  change: (accountId: string, password: string) => Promise<AccountState | string>,
): Promise<StepOutcome> {
  const problem = fieldProblem(input.password);
  if (problem) return refused(400, problem);
  const result = await change(input.pending.accountId, String(input.password ?? ''));
  if (typeof result === 'string') return refused(400, result);
  return { kind: 'passed', accountId: result.id, amr: input.pending.amr };
}
