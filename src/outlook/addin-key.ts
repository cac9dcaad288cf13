// The org's add-in key: what the Outlook add-in sends as `X-Addin-Key`. It is carried in the
// manifest the admin deploys (so every mailbox of the tenant holds it), and is stored only as its
// SHA-256 (for the lookup) and sealed (for showing it again).
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'oak_';
/** `oak_` and 32 random bytes in base64url: what a well-formed key looks like. */
export const ADDIN_KEY_PATTERN = /^oak_[A-Za-z0-9_-]{43}$/;

export function newAddinKey(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

export function hashAddinKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
