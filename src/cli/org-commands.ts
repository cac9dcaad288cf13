import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { createLogger } from '../log.ts';
import { createDeps, type Deps } from '../deps.ts';
import { MIN_PASSWORD_LENGTH } from '../auth/passwords.ts';
import { UsageError } from './errors.ts';

/** Runs fn with the service's dependencies (database migrated), quietly, and closes them. */
export async function withDeps<T>(config: Config, fn: (deps: Deps) => Promise<T>): Promise<T> {
  const deps = await createDeps(config, createLogger('warn', false));
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

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

export async function orgCreate(values: Record<string, unknown>, config: Config) {
  const parsed = orgCreateArgs.safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  const a = parsed.data;
  return withDeps(config, (deps) =>
    deps.orgs.create({
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
