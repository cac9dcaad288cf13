// Signing keys of the identity provider: generated on first start, kept in the database so every
// instance signs and verifies with the same ones, rotated by `sigsvc keys rotate`. A retired key
// stays published (JWKS) until every ID token it signed has expired.
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Db } from '../store/db.ts';
import { idpKeysRepo } from '../store/repositories/idp-keys.ts';

export const SIGNING_ALG = 'RS256';

export interface KeyMaterial {
  /** Private JWKs, the active one first (oidc-provider signs with the first). */
  signing: JWK[];
  /** Cookie-signing secrets, the active one first. */
  cookieKeys: string[];
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomUUID(), alg: SIGNING_ALG, use: 'sig' };
}

export async function rotateSigningKey(db: Db, clock: () => Date): Promise<{ kid: string }> {
  const jwk = await newSigningKey();
  const now = clock();
  await db.transaction().execute(async (tx) => {
    await idpKeysRepo.insert(tx, { kid: jwk.kid as string, use: 'signing', material: jwk as Record<string, unknown> }, now);
    await idpKeysRepo.retireOthers(tx, 'signing', jwk.kid as string, now);
  });
  return { kid: jwk.kid as string };
}

/** Loads the keys, creating them on the very first start. */
export async function loadKeyMaterial(db: Db, opts: { tokenTtlS: number; clock: () => Date }): Promise<KeyMaterial> {
  const now = opts.clock();
  let rows = await idpKeysRepo.all(db);
  if (!rows.some((r) => r.use === 'signing' && !r.retired_at)) {
    const jwk = await newSigningKey();
    await idpKeysRepo.insert(db, { kid: jwk.kid as string, use: 'signing', material: jwk as Record<string, unknown> }, now);
  }
  if (!rows.some((r) => r.use === 'cookie' && !r.retired_at)) {
    const secret = randomBytes(32).toString('base64url');
    await idpKeysRepo.insert(db, { kid: randomUUID(), use: 'cookie', material: { secret } }, now);
  }
  await idpKeysRepo.deleteRetiredBefore(db, new Date(now.getTime() - opts.tokenTtlS * 1000 - 60_000));
  rows = await idpKeysRepo.all(db);
  const ordered = [...rows].sort((a, b) => Number(a.retired_at !== null) - Number(b.retired_at !== null));
  return {
    signing: ordered.filter((r) => r.use === 'signing').map((r) => r.material as JWK),
    cookieKeys: ordered.filter((r) => r.use === 'cookie').map((r) => String(r.material.secret)),
  };
}

/** The public half of each signing key, as published in the JWKS. */
export function publicJwks(signing: JWK[]): JWK[] {
  return signing.map(({ kid, kty, n, e, alg, use }) => ({ kid, kty, n, e, alg, use }));
}
