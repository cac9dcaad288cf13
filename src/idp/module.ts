// The identity provider (oidc-provider under AUTH_URL's path), its sign-in pages and the steps they
// run, its signing keys, and passwords and TOTP. Loads (or makes, on an empty database) its keys.
import type { FastifyPluginAsync } from 'fastify';
import type Provider from 'oidc-provider';
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { loadKeyMaterial, publicJwks, SIGNING_ALG, type KeyMaterial } from './keys.ts';
import { clientIds, createProvider } from './provider.ts';
import { createSignIn, type SignIn } from './sign-in.ts';
import { startPurgingExpired } from './purge.ts';
import { handToProvider, logProviderErrors } from './hooks.ts';
import { interactionRoutes } from './interactions.ts';
import { logoutRoutes } from './logout-routes.ts';
import { signInAttempts, type TakeAttempt } from './attempts.ts';
import { clientCallbacks, pageHeaders } from './views.ts';

export { crossSitePage, errorBox, layout } from './views.ts';
export type { TakeAttempt };
export { startSession } from './session.ts';
export { pinOrigin } from './hooks.ts';

export { clientIds, publicJwks, SIGNING_ALG, type SignIn };
export { rotateSigningKey } from './keys.ts';

/** The identity provider's fixed endpoints (Cognito's paths), each its own route in the metrics. */
export const PROVIDER_ENDPOINTS: ReadonlySet<string> = new Set([
  '/oauth2/authorize',
  '/oauth2/token',
  '/oauth2/userInfo',
  '/oauth2/revoke',
  '/logout',
  '/.well-known/openid-configuration',
  '/.well-known/jwks.json',
]);

export interface Idp {
  provider: Provider;
  signIn: SignIn;
  keys: KeyMaterial;
  /** The OIDC client ids of the two web apps on this stage. */
  clientIds: { app: string; admin: string };
  /** AUTH_URL's path, under which the provider and the sign-in pages answer. */
  authPath: string;
  /**
   * One per-address limit of sign-in attempts for the sign-in pages and the people pages (the
   * shared limiter: in Redis when REDIS_URL is set), and their one set of headers.
   */
  takeAttempt: TakeAttempt;
  pageHeaders: Readonly<Record<string, string>>;
}

export async function idpModule(core: Core): Promise<Module<Idp>> {
  const { config, db, clock } = core;
  const keys = await loadKeyMaterial(db, { tokenTtlS: Math.max(config.idTokenTtlS, config.accessTokenTtlS), clock });
  const provider = createProvider({ config, db, keys, clock });
  logProviderErrors(provider, core.logger);
  const signIn = createSignIn({ db, clock, hasher: core.passwords, invalidate: core.caches.invalidate });
  const authPath = new URL(config.authUrl).pathname.replace(/\/$/, '');
  // The provider answers under AUTH_URL's path, except the sign-in pages, which are more specific routes.
  const providerRoutes: FastifyPluginAsync = async (app) => {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${authPath}/*`,
      schema: { hide: true },
      onRequest: handToProvider(provider, config.authUrl),
      handler: async () => undefined,
    });
  };
  const takeAttempt = signInAttempts(core.limiters.signIn, config.signInAttemptsPerMinute);
  const headers = pageHeaders(clientCallbacks(config));
  return {
    name: 'idp',
    service: { provider, signIn, keys, clientIds: clientIds(config.stage), authPath, takeAttempt, pageHeaders: headers },
    public: [
      providerRoutes,
      interactionRoutes({
        provider,
        signIn,
        clock,
        stage: config.stage,
        authUrl: config.authUrl,
        authPath,
        staffSignInTtlS: config.refreshTokenTtlAdminS,
        takeAttempt,
        pageHeaders: headers,
      }),
      logoutRoutes({ provider, signIn, authUrl: config.authUrl, authPath, pageHeaders: headers }),
    ],
    timers: [() => startPurgingExpired({ db, logger: core.logger, clock })],
  };
}
