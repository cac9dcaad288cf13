import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { UsageError } from './errors.ts';
import { email, parseOptions, password, requiredText, wholeNumber } from './args.ts';
import { withBilling, withOrgs, type CommandContext } from './context.ts';

const orgCreateArgs = z.object({
  name: requiredText(200),
  seats: wholeNumber(5),
  plan: requiredText(100).default('trial'),
  'owner-email': email(),
  'owner-name': requiredText(200).optional(),
  'owner-password': password(MIN_PASSWORD_LENGTH).optional(),
});

export async function orgCreate(values: Record<string, unknown>, ctx: CommandContext) {
  const a = parseOptions(orgCreateArgs, values);
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
