import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../auth/passwords.ts';
import { UsageError } from './errors.ts';
import { withBilling, withOrgs, type CommandContext } from './context.ts';

const orgCreateArgs = z.object({
  name: z.string().trim().min(1, '--name is required').max(200),
  seats: z.coerce.number().int().min(0, '--seats must be a whole number ≥ 0').default(5),
  plan: z.string().trim().min(1).max(100).default('trial'),
  'owner-email': z.email('--owner-email must be an email address'),
  'owner-name': z.string().max(200).optional(),
  'owner-password': z
    .string()
    .min(MIN_PASSWORD_LENGTH, `--owner-password must have at least ${MIN_PASSWORD_LENGTH} characters`)
    .optional(),
});

export async function orgCreate(values: Record<string, unknown>, ctx: CommandContext) {
  const parsed = orgCreateArgs.safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  const a = parsed.data;
  return withOrgs(ctx, (orgs) =>
    orgs.create({
      name: a.name,
      seats: a.seats,
      plan: a.plan,
      ownerEmail: a['owner-email'],
      ownerName: a['owner-name'],
      ownerPassword: a['owner-password'],
      correlationId: `cli-${randomUUID()}`,
    }),
  );
}

/** Applies stored payment events again: the failed ones, or the one named. */
export async function eventsReplay(values: { id?: string }, ctx: CommandContext) {
  const results = await withBilling(ctx, (billing) => billing.replay(values.id));
  if (values.id && results.length === 0) throw new UsageError(`no stored event ${values.id}`);
  return { replayed: results };
}
