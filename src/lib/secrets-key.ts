// SECRETS_KEY as config.ts reads it (neutral, so the config may use it; src/secrets/ seals with it).

export const SECRETS_KEY_HOWTO =
  'Make one with `openssl rand -base64 32` and set it as SECRETS_KEY (keep it: secrets sealed under it cannot be read without it).';

/** Decodes SECRETS_KEY (base64 of 32 bytes), or explains what is wrong with it. */
export function parseSecretsKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== trimmed.replace(/=+$/, '')) {
    throw new Error(`must be 32 random bytes in base64. ${SECRETS_KEY_HOWTO}`);
  }
  return key;
}
