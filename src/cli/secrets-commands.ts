import { z } from 'zod';
import { createSecretBox, rekeySecrets } from '../secrets/module.ts';
import { UsageError } from './errors.ts';
import { parseOptions } from './args.ts';
import { withDatabase, type CommandContext } from './context.ts';

const rekeyArgs = z.object({ 'dry-run': z.boolean().default(false) });

/** Seals every stored secret again under SECRETS_KEY (the old keys given in SECRETS_KEY_PREVIOUS). */
export async function secretsRekey(values: Record<string, unknown>, ctx: CommandContext) {
  const args = parseOptions(rekeyArgs, values);
  const { secretsKey, secretsKeysPrevious } = ctx.config;
  // Refused before the database is opened.
  if (!secretsKey) {
    throw new UsageError(
      'SECRETS_KEY is not set (nor is there a key file the service made in DATA_DIR): set the new key as SECRETS_KEY and the old one(s) as SECRETS_KEY_PREVIOUS.',
    );
  }
  const secrets = createSecretBox(secretsKey, secretsKeysPrevious);
  return withDatabase(ctx, async ({ db }) => {
    const result = await rekeySecrets({ db, secrets, dryRun: args['dry-run'] });
    return result.changedMeanwhile > 0
      ? { ...result, note: 'Some secrets were replaced while this ran (stored again through the service); run it again to check them.' }
      : result;
  });
}
