// Secrets kept in the database (a Google service account's private key, a Microsoft client
// secret) are sealed with AES-256-GCM under SECRETS_KEY. node:crypto does this in a few lines;
// a library would add nothing but a dependency.
//
// Format (versioned, so the scheme or the key can change later):
//   v1.<kid>.<iv>.<ciphertext+tag>      (base64url parts)
// `kid` names the key (the first 8 bytes of an HMAC of a fixed label under it): a secret sealed
// under another key is refused with a message saying so, instead of a bare authentication failure.
// The caller's `context` (e.g. `google:<orgId>`) is bound in as additional authenticated data, so a
// sealed value copied into another org's row does not open there.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import { SECRETS_KEY_HOWTO } from '../lib/secrets-key.ts';

export { parseSecretsKey } from '../lib/secrets-key.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;


export interface SecretBox {
  /** Whether SECRETS_KEY is set (the integrations' GET says so before an admin tries to connect). */
  readonly available: boolean;
  /** Seals a secret; 503 SERVICE_UNAVAILABLE when SECRETS_KEY is not set. */
  seal(plaintext: string, context: string): string;
  /** Opens a sealed secret; throws SecretError when it cannot (another key, a tampered value, no key). */
  open(sealed: string, context: string): string;
}

/** A sealed value that cannot be opened: the caller reports it (an integration's `lastError`). */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

const keyId = (key: Buffer) => createHmac('sha256', key).update('sigsvc secrets key id').digest().subarray(0, 8).toString('base64url');

export function createSecretBox(key: Buffer | undefined): SecretBox {
  const kid = key ? keyId(key) : undefined;
  const aad = (context: string) => Buffer.from(`${VERSION}.${kid}.${context}`);
  return {
    available: key !== undefined,
    seal(plaintext, context) {
      if (!key) {
        throw new AppError('SERVICE_UNAVAILABLE', `This service stores no secrets until SECRETS_KEY is set. ${SECRETS_KEY_HOWTO}`, {
          details: { missing: 'SECRETS_KEY' },
        });
      }
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, kid, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      if (!key) throw new SecretError(`SECRETS_KEY is not set, so the stored secret cannot be read. ${SECRETS_KEY_HOWTO}`);
      const [version, sealedKid, ivText, bodyText, ...rest] = sealed.split('.');
      if (version !== VERSION || !sealedKid || !ivText || !bodyText || rest.length > 0) {
        throw new SecretError('The stored secret is not in a format this version understands.');
      }
      if (sealedKid !== kid) {
        throw new SecretError('The stored secret was sealed under another SECRETS_KEY: set that key again, or store the secret anew.');
      }
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretError('The stored secret is damaged.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretError('The stored secret does not authenticate (damaged, or sealed for another record).');
      }
    },
  };
}
