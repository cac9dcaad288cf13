// `Provider-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 keyed with the secret over
// `<t>.<raw body>`, Stripe's scheme (stripe-node src/Webhooks.ts). Written here because the
// official SDK reads its own header name (Stripe-Signature) and is a dev dependency only.
//
// Read strictly, where Stripe's SDK is lenient: every part is `key=value`, `t` appears once and is
// digits, each `v1` is exactly 64 hex digits (trailing junk used to pass, as hex decoding stops at
// the first bad character). Other schemes (`v0`) are allowed and ignored.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

const PART = /^([a-z][a-z0-9]*)=(.+)$/;
const TIMESTAMP = /^\d{1,12}$/;
const V1 = /^[0-9a-f]{64}$/i;
/** Secret rolls send a few v1 values; more than this is not a header the provider makes. */
const MAX_PARTS = 16;

export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  const parts = header.split(',');
  if (parts.length > MAX_PARTS) return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of parts) {
    const match = PART.exec(part);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 't') {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!V1.test(value)) return undefined;
      signatures.push(value.toLowerCase());
    } else if (/[\s=]/.test(value)) {
      return undefined;
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

export function sign(payload: Buffer | string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

export function verifySignature(rawBody: Buffer, header: string | undefined, secret: string, opts: { toleranceS: number; nowS: number }): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing signature header' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed signature header' };
  // Both ways: an old timestamp is a replay, one in the future a header made to outlive the
  // tolerance (Stripe's SDK checks the past only).
  if (Math.abs(opts.nowS - parsed.timestamp) > opts.toleranceS) return { ok: false, reason: 'timestamp outside the tolerance' };
  const expected = Buffer.from(sign(rawBody, secret, parsed.timestamp), 'hex');
  const match = parsed.signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return match ? { ok: true } : { ok: false, reason: 'no signature matches' };
}
