// TOTP (RFC 6238) through otpauth: 6 digits, 30 s, ±1 step of drift; a code is accepted once
// (the step it matched is remembered and no step at or before it is accepted again).
import { Secret, TOTP } from 'otpauth';
import { systemClock } from '../lib/clock.ts';

const PERIOD = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = 'user'): TOTP {
  return new TOTP({ issuer: 'Signature Service', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

export function otpauthUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/** The step the code matched, when it is valid now and newer than lastStep; else undefined. */
export function checkTotp(secret: string, code: string, lastStep: number | null, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  if (lastStep !== null && step <= lastStep) return undefined;
  return step;
}

/** For tests and enrolment pages: the code of a secret at a time. */
export function totpCode(secret: string, now = systemClock().getTime()): string {
  return totp(secret).generate({ timestamp: now });
}
