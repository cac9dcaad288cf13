import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH, scryptHasher } from '../auth/passwords.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import { rotateSigningKey } from '../auth/idp/keys.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { UsageError } from './errors.ts';
import { withDatabase, type CommandContext } from './context.ts';

const staffArgs = z.object({
  email: z.email('--email must be an email address'),
  password: z.string().min(MIN_PASSWORD_LENGTH, `--password must have at least ${MIN_PASSWORD_LENGTH} characters`),
});

/** A super-admin of the staff admin app; TOTP is enrolled at their first sign-in. */
export async function staffCreate(values: Record<string, unknown>, ctx: CommandContext) {
  const parsed = staffArgs.safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  const userId = randomUUID();
  const hash = await (ctx.passwords ?? scryptHasher).hash(parsed.data.password);
  return withDatabase(ctx, async ({ db }) => {
    try {
      await accountsRepo.insertStaff(db, { id: userId, email: parsed.data.email, password_hash: hash });
    } catch (err) {
      if (isUniqueViolation(err)) throw new UsageError(`a staff account with the email ${parsed.data.email} exists already`);
      throw err;
    }
    return { userId };
  });
}

/** A new signing key; the previous one stays published until its tokens have expired. */
export async function keysRotate(_values: Record<string, unknown>, ctx: CommandContext) {
  return withDatabase(ctx, async ({ db }) => {
    const { kid } = await rotateSigningKey(db, () => new Date());
    return { kid, note: 'Restart the instances (one at a time) so that they sign with the new key.' };
  });
}
