// Signing per Standard Webhooks 1.0 with its reference library (standardwebhooks): receivers
// verify with the same library, or any other that follows the specification. After rotations the
// signature header carries one `v1,…` value per secret that still signs (space-separated, as the
// specification allows), so a receiver that has any of them verifies.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sealedContext, type SecretBox } from '../secrets/module.ts';

/** `whsec_` + base64 of 32 random bytes (the specification asks for 24 to 64). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** How many rotated-out secrets sign at most (an 11th rotation within 24 hours drops the oldest). */
export const MAX_PREVIOUS_SECRETS = 10;

export interface PreviousSecret {
  secret: string;
  /** ISO time until which it signs beside the current one. */
  until: string;
}

export interface EndpointSecrets {
  current: string;
  /** Secrets rotated out, newest first. */
  previous: PreviousSecret[];
}

/** As sealed before several old secrets were kept: one, whose end was the row's `previous_until`. */
type StoredSecrets = { current: string; previous: PreviousSecret[] | string | null };

/** Sealed for the org (src/secrets/): all of an endpoint's secrets in one value, re-sealed together by `sigsvc secrets rekey` (one org, many rows: each row's value is replaced on its own). */
const context = (orgId: string) => sealedContext('webhook', orgId);
export const sealSecrets = (box: SecretBox, orgId: string, secrets: EndpointSecrets) => box.seal(JSON.stringify(secrets), context(orgId));

/** `previousUntil`: the row's `previous_until`, the end of the one old secret a value sealed by earlier versions carries. */
export function openSecrets(box: SecretBox, orgId: string, sealed: string, previousUntil: Date | null): EndpointSecrets {
  const stored = JSON.parse(box.open(sealed, context(orgId))) as StoredSecrets;
  if (Array.isArray(stored.previous)) return { current: stored.current, previous: stored.previous };
  const old = stored.previous && previousUntil ? [{ secret: stored.previous, until: previousUntil.toISOString() }] : [];
  return { current: stored.current, previous: old };
}

/** The secrets that sign at `at`: the current one, then the rotated-out ones still within their 24 hours. */
export function signingSecrets(secrets: EndpointSecrets, at: Date): string[] {
  return [secrets.current, ...secrets.previous.filter((p) => Date.parse(p.until) > at.getTime()).map((p) => p.secret)];
}

/** After a rotation at `at`: `fresh` signs, the current one and the old ones still signing keep on (at most MAX_PREVIOUS_SECRETS). */
export function rotated(secrets: EndpointSecrets, fresh: string, at: Date, overlapMs: number): EndpointSecrets {
  const kept = secrets.previous.filter((p) => Date.parse(p.until) > at.getTime());
  const previous = [{ secret: secrets.current, until: new Date(at.getTime() + overlapMs).toISOString() }, ...kept];
  return { current: fresh, previous: previous.slice(0, MAX_PREVIOUS_SECRETS) };
}

/** The three headers of a delivery. */
export function signedHeaders(eventId: string, at: Date, body: string, secrets: string[]): Record<string, string> {
  const signature = secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' ');
  return { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}
