// Secrets kept in the database (a Google service account's private key, a Microsoft client
// secret) are sealed with AES-256-GCM under SECRETS_KEY. node:crypto does this in a few lines;
// a library would add nothing but a dependency.
//
// Format (versioned, so the scheme or the key can change later):
//   v1.<kid>.<iv>.<ciphertext+tag>      (base64url parts)
// `kid` names the key (the first 8 bytes of an HMAC of a fixed label under it): a secret sealed
// under another key is refused with a message saying so, instead of a bare authentication failure.
//
// Rotation: `seal` always uses SECRETS_KEY; `open` finds the key by the value's kid among
// SECRETS_KEY and SECRETS_KEY_PREVIOUS, so values sealed under an old key keep opening until
// `sigsvc secrets rekey` has sealed them again under the current one (src/secrets/rekey.ts).
// The caller's `context` (e.g. `google:<orgId>`) is bound in as additional authenticated data, so a
// sealed value copied into another org's row does not open there.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { AppError } from '../kernel/errors.ts';
import { SECRETS_KEY_HOWTO } from '../lib/secrets-key.ts';
import type { SealedKind } from '../store/repositories/sealed-secrets.ts';

export { parseSecretsKey } from '../lib/secrets-key.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Whether SECRETS_KEY is set (the integrations' GET says so before an admin tries to connect). */
  readonly available: boolean;
  /** The kid of SECRETS_KEY, the key `seal` uses (undefined when it is not set). */
  readonly keyId: string | undefined;
  /** Seals a secret; 503 SERVICE_UNAVAILABLE when SECRETS_KEY is not set. */
  seal(plaintext: string, context: string): string;
  /** Opens a sealed secret under SECRETS_KEY or a previous key; throws SecretError when it cannot (an unknown key, a tampered value, no key). */
  open(sealed: string, context: string): string;
  /**
   * The value sealed again under SECRETS_KEY when it was sealed under a previous key, or null when
   * it is under SECRETS_KEY already; either way it must open (SecretError when it does not).
   */
  reseal(sealed: string, context: string): string | null;
}

/** A sealed value that cannot be opened: the caller reports it (an integration's `lastError`). */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

/** The context a stored secret is sealed for: its kind and its org (one per org and kind). */
export const sealedContext = (kind: SealedKind, orgId: string) => `${kind}:${orgId}`;

const keyId = (key: Buffer) => createHmac('sha256', key).update('sigsvc secrets key id').digest().subarray(0, 8).toString('base64url');

/**
 * `key` is SECRETS_KEY (unset: nothing is sealed or opened); `previous` are the keys of
 * SECRETS_KEY_PREVIOUS, which only open.
 */
export function createSecretBox(key: Buffer | undefined, previous: readonly Buffer[] = []): SecretBox {
  const kid = key ? keyId(key) : undefined;
  const opening = new Map<string, Buffer>();
  for (const k of previous) opening.set(keyId(k), k);
  if (key && kid) opening.set(kid, key);
  const aad = (sealedKid: string, context: string) => Buffer.from(`${VERSION}.${sealedKid}.${context}`);

  function parse(sealed: string) {
    const [version, sealedKid, ivText, bodyText, ...rest] = sealed.split('.');
    if (version !== VERSION || !sealedKid || !ivText || !bodyText || rest.length > 0) {
      throw new SecretError('The stored secret is not in a format this version understands.');
    }
    return { sealedKid, ivText, bodyText };
  }

  const box: SecretBox = {
    available: key !== undefined,
    keyId: kid,
    seal(plaintext, context) {
      if (!key || !kid) {
        throw new AppError('SERVICE_UNAVAILABLE', `This service stores no secrets until SECRETS_KEY is set. ${SECRETS_KEY_HOWTO}`, {
          details: { missing: 'SECRETS_KEY' },
        });
      }
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(kid, context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, kid, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      if (!key) throw new SecretError(`SECRETS_KEY is not set, so the stored secret cannot be read. ${SECRETS_KEY_HOWTO}`);
      const { sealedKid, ivText, bodyText } = parse(sealed);
      const sealingKey = opening.get(sealedKid);
      if (!sealingKey) {
        throw new SecretError(
          'The stored secret was sealed under another SECRETS_KEY: set that key again (as SECRETS_KEY, or in SECRETS_KEY_PREVIOUS while rotating), or store the secret anew.',
        );
      }
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretError('The stored secret is damaged.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealingKey, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(sealedKid, context));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretError('The stored secret does not authenticate (damaged, or sealed for another record).');
      }
    },
    reseal(sealed, context) {
      const plaintext = box.open(sealed, context);
      return parse(sealed).sealedKid === kid ? null : box.seal(plaintext, context);
    },
  };
  return box;
}
