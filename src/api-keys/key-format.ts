// API key values: `svc_<stage>_<random>`, <random> = 32 bytes of a CSPRNG, base64url, no padding
// (43 characters). Stored only as SHA-256: fit for 256-bit random secrets (no dictionary to guess
// from, so a slow hash would only cost latency).
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'svc_';
const SHAPE = /^svc_([a-z0-9]{1,16})_([A-Za-z0-9_-]{43})$/;

export function mintKey(stage: string): { key: string; hash: string; prefix: string } {
  const key = `${KEY_PREFIX}${stage}_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashKey(key), prefix: displayPrefix(key) };
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Enough of the key to recognise it in a list (`svc_dev_AbCd…`), far too little to use it. */
export function displayPrefix(key: string): string {
  const [, stage, random] = SHAPE.exec(key) ?? [];
  return `${KEY_PREFIX}${stage}_${(random ?? '').slice(0, 6)}`;
}

export type KeyShape = { ok: true; stage: string } | { ok: false; reason: 'malformed' };

export function parseKey(value: string): KeyShape {
  const match = SHAPE.exec(value);
  return match ? { ok: true, stage: match[1] as string } : { ok: false, reason: 'malformed' };
}
