// `Provider-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 keyed with the secret over
// `<t>.<raw body>`, Stripe's scheme (stripe-node src/Webhooks.ts). Written here because the
// official SDK reads its own header name (Stripe-Signature) and is a dev dependency only.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const key = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (key === 't') timestamp = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  if (!Number.isInteger(timestamp) || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

export function sign(payload: Buffer | string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

export function verifySignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string,
  opts: { toleranceS: number; nowS: number },
): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing Provider-Signature header' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed Provider-Signature header' };
  // Old timestamps only, as Stripe's SDK: a replayed delivery past the tolerance is refused.
  if (opts.nowS - parsed.timestamp > opts.toleranceS) return { ok: false, reason: 'timestamp outside the tolerance' };
  const expected = Buffer.from(sign(rawBody, secret, parsed.timestamp), 'hex');
  const match = parsed.signatures.some((s) => {
    const given = Buffer.from(s, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? { ok: true } : { ok: false, reason: 'no signature matches' };
}
