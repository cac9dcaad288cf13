// Click tokens (DECISIONS wave 3, "Clicks"): `{base_url}/v1/c/{token}` names org, campaign, variant,
// user and destination, signed with HMAC-SHA256 under a key derived from SECRETS_KEY (HKDF, so the
// click key is never the sealing key itself). Deterministic: the same fields give the same token, so
// a push does not see a changed signature. Not guessable: a token is only made by this service.
import { createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';

export interface ClickTarget {
  orgId: string;
  campaignId: string | null;
  variant: number | null;
  userId: string;
  destination: string;
}

export function clickKey(secretsKey: string | Buffer): Buffer {
  const ikm = typeof secretsKey === 'string' ? Buffer.from(secretsKey, 'utf8') : secretsKey;
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'signature-service click tokens v1', 32));
}

const MAC_BYTES = 16;

/**
 * The longest token made: a destination of 2,000 characters (the links' limit) is at most 6,000
 * bytes of UTF-8, 8,000 characters of base64url, with the other fields and the MAC well under this.
 * Node's HTTP parser takes request lines up to 16 KB.
 */
export const MAX_TOKEN_CHARS = 10_240;

/**
 * Whether `given` is exactly the base64url text of `expected`. Comparing the decoded bytes would
 * also accept the 15 other spellings of a 16-byte MAC (its last character carries 4 unused bits).
 */
function macMatches(given: string, expected: Buffer): boolean {
  const wanted = Buffer.from(expected.toString('base64url'), 'latin1');
  const got = Buffer.from(given, 'latin1');
  return got.length === wanted.length && timingSafeEqual(got, wanted);
}

// The key as a KeyObject, made once per key: createHmac given raw bytes makes one on every call,
// which cost ~9 µs of CPU per MAC on Node 24 against ~2 µs with a KeyObject (BENCHMARKS.md, "click").
const keyObjects = new WeakMap<Buffer, KeyObject>();
function macOf(key: Buffer, body: string): Buffer {
  let keyObject = keyObjects.get(key);
  if (!keyObject) {
    keyObject = createSecretKey(key);
    keyObjects.set(key, keyObject);
  }
  return createHmac('sha256', keyObject).update(body).digest().subarray(0, MAC_BYTES);
}

export function signClick(key: Buffer, t: ClickTarget): string {
  const body = Buffer.from(JSON.stringify([t.orgId, t.campaignId, t.variant, t.userId, t.destination]), 'utf8').toString('base64url');
  const mac = macOf(key, body).toString('base64url');
  return `${body}.${mac}`;
}

/** The target a token names, or null when it is not one of ours (malformed or its signature wrong). */
export function verifyClick(key: Buffer, token: string): ClickTarget | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0 || token.length > MAX_TOKEN_CHARS) return null;
  const body = token.slice(0, dot);
  if (!macMatches(token.slice(dot + 1), macOf(key, body))) return null;
  try {
    const [orgId, campaignId, variant, userId, destination] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [
      string,
      string | null,
      number | null,
      string,
      string,
    ];
    if (typeof orgId !== 'string' || typeof userId !== 'string' || typeof destination !== 'string' || !/^https?:\/\//i.test(destination)) return null;
    return { orgId, campaignId, variant, userId, destination };
  } catch {
    return null;
  }
}

/**
 * What a pixel's `c` parameter names: the campaign whose banner the opened signature showed, and
 * whose signature it was (the pixel's own user id: a `c` copied onto another id counts nothing).
 */
export interface PixelCampaign {
  orgId: string;
  campaignId: string;
  variant: number;
  userId: string;
}

// The user is in the MAC, not in the body: the pixel's path names them already, and every byte of
// `c` is a byte of every signature that shows a banner.
const pixelMac = (key: Buffer, body: string, userId: string) => macOf(key, `${body}.${userId.toLowerCase()}`);

/** The pixel's signed `c` parameter (the same key and MAC as click tokens, another shape). */
export function signPixelCampaign(key: Buffer, p: PixelCampaign): string {
  const body = Buffer.from(JSON.stringify(['p', p.orgId, p.campaignId, p.variant]), 'utf8').toString('base64url');
  return `${body}.${pixelMac(key, body, p.userId).toString('base64url')}`;
}

/** The campaign of a pixel's `c`, when it is ours and was made for the pixel of `userId`; else null. */
export function verifyPixelCampaign(key: Buffer, value: string, userId: string): PixelCampaign | null {
  const dot = value.lastIndexOf('.');
  if (dot <= 0 || value.length > 500) return null;
  const body = value.slice(0, dot);
  if (!macMatches(value.slice(dot + 1), pixelMac(key, body, userId))) return null;
  try {
    const [kind, orgId, campaignId, variant] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, string, number];
    if (kind !== 'p' || typeof orgId !== 'string' || typeof campaignId !== 'string' || !Number.isInteger(variant)) return null;
    return { orgId, campaignId, variant, userId: userId.toLowerCase() };
  } catch {
    return null;
  }
}
