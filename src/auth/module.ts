// Authentication of API requests: API keys and ID tokens (ours, and OIDC_ISSUER's when set) become
// a Principal; the guards (http/guard.ts) run it first in the authenticated scope.
import type { JWK } from 'jose';
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { Authenticate } from '../kernel/principal.ts';
import { createGuards, type Guards } from '../http/guard.ts';
import { idpKeysRepo } from '../store/repositories/idp-keys.ts';
import type { ApiKeyService } from '../api-keys/module.ts';
import { publicJwks, type Idp } from '../idp/module.ts';
import { createAccountsCache } from './accounts-cache.ts';
import { createAuthenticator } from './authenticate.ts';
import { createIdTokenVerifier, discoverIssuer, localIssuer, type TrustedIssuer } from './id-token.ts';

export interface Auth {
  authenticate: Authenticate;
  guards: Guards;
}

export async function authModule(core: Core, needs: { apiKeys: Module<ApiKeyService>; idp: Module<Idp> }): Promise<Module<Auth>> {
  const { config, db, caches } = core;
  const { keys, clientIds: ids } = needs.idp.service;
  const accounts = createAccountsCache({ db, caches });
  const issuers: TrustedIssuer[] = [
    localIssuer({
      issuer: config.authUrl,
      audiences: [ids.app, ids.admin],
      staffAudience: ids.admin,
      initialKeys: publicJwks(keys.signing),
      loadPublicKeys: async () => publicJwks((await idpKeysRepo.all(db)).filter((k) => k.use === 'signing').map((k) => k.material as JWK)),
    }),
  ];
  if (config.oidcIssuer) issuers.push(await discoverIssuer(config.oidcIssuer, config.oidcAudiences));
  const idTokens = createIdTokenVerifier({ issuers, clock: core.clock, cache: caches.idTokens, current: accounts.current });
  const authenticate = createAuthenticator({ apiKeys: needs.apiKeys.service, idTokens });
  return { name: 'auth', service: { authenticate, guards: createGuards(authenticate) } };
}
