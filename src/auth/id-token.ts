// ID-token authentication on the API (docs/guide.md, "Credentials"; docs/identity.md): signature
// by our JWKS (or a trusted external issuer's), `iss`, `aud` one of the clients, `exp` (by the
// injected clock), `token_use` = "id".
// A verified token is cached (by its hash) until it expires, so a signature is checked once.
import { hash } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Caches } from '../cache/namespaces.ts';
import type { IdTokenVerifier } from './authenticate.ts';
import type { Principal } from '../kernel/principal.ts';
import { SIGNING_ALG } from '../idp/module.ts';

const ORG_ROLES = new Set(['member', 'admin', 'owner']);

export interface TrustedIssuer {
  issuer: string;
  audiences: string[];
  /** The audience (client) whose tokens may carry `custom:role` = super-admin. */
  staffAudience?: string | undefined;
  keys: JWTVerifyGetKey;
  /** Our own issuer: its subjects are accounts of our database, checked on every use. */
  local: boolean;
}

/** Our own issuer: keys from the database, re-read when a token names a key we do not know yet. */
export function localIssuer(opts: {
  issuer: string;
  audiences: string[];
  staffAudience: string;
  loadPublicKeys: () => Promise<JWK[]>;
  initialKeys: JWK[];
}): TrustedIssuer {
  let keySet = createLocalJWKSet({ keys: opts.initialKeys });
  // Elapsed time between reloads, by the monotonic clock (a load limit, not a date).
  let lastReload = Number.NEGATIVE_INFINITY;
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (err) {
      // Another instance may have rotated the signing key: look again, at most every 10 s.
      if (!(err instanceof errors.JWKSNoMatchingKey) || performance.now() - lastReload < 10_000) throw err;
      lastReload = performance.now();
      keySet = createLocalJWKSet({ keys: await opts.loadPublicKeys() });
      return keySet(header, token);
    }
  };
  return { issuer: opts.issuer, audiences: opts.audiences, staffAudience: opts.staffAudience, keys, local: true };
}

/** An external issuer (Cognito, Keycloak…), found by OpenID discovery. */
export async function discoverIssuer(issuer: string, audiences: string[]): Promise<TrustedIssuer> {
  const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`OIDC_ISSUER discovery failed: ${res.status}`);
  const meta = (await res.json()) as { issuer?: string; jwks_uri?: string };
  if (!meta.jwks_uri || !meta.issuer) throw new Error('OIDC_ISSUER discovery document has no issuer or jwks_uri');
  // Its users live in that issuer, not in our database: its claims are taken as they are.
  return { issuer: meta.issuer, audiences, keys: createRemoteJWKSet(new URL(meta.jwks_uri)), local: false };
}

export function createIdTokenVerifier(deps: {
  issuers: TrustedIssuer[];
  clock: () => Date;
  /** The `idTokens` cache of src/cache/namespaces.ts. */
  cache: Caches['idTokens'];
  /**
   * The principal as it stands now: undefined when the account was deleted or left the org; a
   * user's role is the current one, so a demotion takes effect before the token expires.
   */
  current: (p: Principal) => Promise<Principal | undefined>;
}): IdTokenVerifier {
  const { cache } = deps;
  const resolve = (principal: Principal, local: boolean) => (local ? deps.current(principal) : Promise.resolve(principal));

  async function verifyWith(token: string, issuer: TrustedIssuer): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(token, issuer.keys, {
        issuer: issuer.issuer,
        audience: issuer.audiences,
        algorithms: [SIGNING_ALG],
        currentDate: deps.clock(),
        requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch {
      return undefined;
    }
  }

  function principalOf(payload: JWTPayload, issuer: TrustedIssuer): Principal | undefined {
    if (payload.token_use !== 'id') return undefined;
    const sub = String(payload.sub);
    const role = payload['custom:role'];
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (role === 'super-admin') {
      // Super-admin only through the staff client (never through keys or the app client: docs/api.md, "Signing in").
      return issuer.staffAudience && aud.includes(issuer.staffAudience) ? { kind: 'staff', userId: sub } : undefined;
    }
    const orgId = payload['custom:orgId'];
    if (typeof orgId !== 'string' || typeof role !== 'string' || !ORG_ROLES.has(role)) return undefined;
    return { kind: 'user', userId: sub, orgId, role: role as 'member' | 'admin' | 'owner' };
  }

  return {
    async verify(token) {
      const key = hash('sha256', token, 'base64url');
      const now = deps.clock().getTime() / 1000;
      const hit = cache.get(key);
      if (hit) {
        if (hit.exp > now) return resolve(hit.principal, hit.local);
        cache.delete(key);
        return undefined;
      }
      if (token.split('.').length !== 3) return undefined;
      for (const issuer of deps.issuers) {
        const payload = await verifyWith(token, issuer);
        if (!payload) continue;
        const principal = principalOf(payload, issuer);
        if (!principal) return undefined;
        cache.set(key, { principal, exp: payload.exp as number, local: issuer.local });
        return resolve(principal, issuer.local);
      }
      return undefined;
    },
  };
}
