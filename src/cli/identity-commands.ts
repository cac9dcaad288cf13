import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH, scryptHasher } from '../lib/passwords.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import { rotateSigningKey } from '../idp/module.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { UsageError } from './errors.ts';
import { email, parseOptions, password } from './args.ts';
import { withDatabase, type CommandContext } from './context.ts';
import { systemClock } from '../lib/clock.ts';

const staffArgs = z.object({ email: email(), password: password(MIN_PASSWORD_LENGTH) });

/** A super-admin of the staff admin app; TOTP is enrolled at their first sign-in. */
export async function staffCreate(values: Record<string, unknown>, ctx: CommandContext) {
  const args = parseOptions(staffArgs, values);
  const userId = randomUUID();
  const hash = await (ctx.passwords ?? scryptHasher).hash(args.password);
  return withDatabase(ctx, async ({ db }) => {
    try {
      await accountsRepo.insertStaff(db, { id: userId, email: args.email, password_hash: hash });
    } catch (err) {
      if (isUniqueViolation(err)) throw new UsageError(`a staff account with the email ${args.email} exists already`);
      throw err;
    }
    return { userId };
  });
}

/** A new signing key; the previous one stays published until its tokens have expired. */
export async function keysRotate(_values: Record<string, unknown>, ctx: CommandContext) {
  return withDatabase(ctx, async ({ db }) => {
    const { kid } = await rotateSigningKey(db, systemClock);
    return { kid, note: 'Restart the instances (one at a time) so that they sign with the new key.' };
  });
}
