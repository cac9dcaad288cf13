// Signing per Standard Webhooks 1.0 with its reference library (standardwebhooks): receivers
// verify with the same library, or any other that follows the specification. During a rotation
// the signature header carries one `v1,…` value per secret (space-separated), so a receiver that
// has either secret verifies.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sealedContext, type SecretBox } from '../secrets/module.ts';

/** `whsec_` + base64 of 32 random bytes (the specification asks for 24 to 64). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export interface EndpointSecrets {
  current: string;
  previous: string | null;
}

/** Sealed for the org (src/secrets/): both secrets in one value, re-sealed together by `sigsvc secrets rekey` (one org, many rows: each row's value is replaced on its own). */
const context = (orgId: string) => sealedContext('webhook', orgId);
export const sealSecrets = (box: SecretBox, orgId: string, secrets: EndpointSecrets) => box.seal(JSON.stringify(secrets), context(orgId));
export const openSecrets = (box: SecretBox, orgId: string, sealed: string): EndpointSecrets => JSON.parse(box.open(sealed, context(orgId))) as EndpointSecrets;

/** The three headers of a delivery. */
export function signedHeaders(eventId: string, at: Date, body: string, secrets: string[]): Record<string, string> {
  const signature = secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' ');
  return { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}
