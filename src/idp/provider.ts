// The OpenID Connect provider (oidc-provider v9), configured to behave like a Cognito user pool
// (docs/identity.md): two public clients with PKCE S256, Cognito's route names, ID tokens with the
// tenancy claims, a refresh token on every code exchange, lifetimes from config.
import Provider, { interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import { adapterFor } from './adapter.ts';
import type { KeyMaterial } from './keys.ts';
import { clientCallbacks, errorPage, logoutPage, pageHeaders, signedOutPage } from './views.ts';

const USER_SCOPES = ['openid', 'email', 'profile', 'aws.cognito.signin.user.admin'];
/** Granted to staff through the admin client only (docs/api.md, "Signing in"). */
export const STAFF_SCOPE = 'custom:role=super-admin';
export const SCOPES = [...USER_SCOPES, STAFF_SCOPE];

/**
 * oidc-provider takes only http(s) callbacks from "web" clients; a client with a callback of
 * another scheme (an extension's, a mobile app's) is registered as "native", which allows them
 * (and, for http, only loopback hosts).
 */
const applicationType = (callbacks: string[]) => (callbacks.every((u) => /^https?:/i.test(u)) ? 'web' : 'native');

/** How long a sign-in in progress (an interaction) is kept. */
export const INTERACTION_TTL_S = 600;

export function clientIds(stage: string) {
  return { app: `app-client-${stage}`, admin: `admin-client-${stage}` };
}

/** What a browser's identity-provider session says of its sign-in. */
export interface SessionFacts {
  accountId?: string;
  amr?: string[];
  loginTs?: number;
}

/**
 * Whether a browser's session signs in to a client without a form: an org user's for the customer
 * client; for the admin client a staff member's, with TOTP, within the admin client's refresh
 * lifetime of its sign-in (docs/api.md, "Staff"). The provider's login check (below) and the
 * throttle of `/oauth2/authorize` (interactions.ts: a silent re-authorization is no attempt) ask this
 * same question.
 */
export function sessionFit(deps: {
  ids: ReturnType<typeof clientIds>;
  staffSignInTtlS: number;
  clock: () => Date;
  kindOf: (accountId: string) => Promise<string | undefined>;
}) {
  return async (session: SessionFacts, clientId: string): Promise<boolean> => {
    if (!session.accountId) return false;
    const kind = await deps.kindOf(session.accountId);
    if (!kind) return false;
    const wantsStaff = clientId === deps.ids.admin;
    if (wantsStaff !== (kind === 'staff')) return false;
    if (!wantsStaff) return true;
    if (!(session.amr ?? []).includes('otp') || session.loginTs === undefined) return false;
    return Math.floor(deps.clock().getTime() / 1000) < session.loginTs + deps.staffSignInTtlS;
  };
}

/** How long each kind of the provider's records lives. */
function ttlOf(config: Config, ids: ReturnType<typeof clientIds>, nowS: () => number): NonNullable<Configuration['ttl']> {
  const refreshTtl = (clientId: string | undefined) => (clientId === ids.admin ? config.refreshTokenTtlAdminS : config.refreshTokenTtlAppS);
  const longest = Math.max(config.refreshTokenTtlAppS, config.refreshTokenTtlAdminS);
  return {
    IdToken: config.idTokenTtlS,
    AccessToken: config.accessTokenTtlS,
    AuthorizationCode: 300,
    // An anonymous authorize stores an interaction: at most SIGNIN_ATTEMPTS_PER_MINUTE a minute
    // per address (interactions.ts), each kept 10 minutes (enough to type a password and a code),
    // so an address can make the store keep ~10 × that many rows, not an hour's worth of calls.
    Interaction: INTERACTION_TTL_S,
    RefreshToken: (_ctx, _token, client) => refreshTtl(client?.clientId),
    // Grants and sessions must outlive the longest refresh token, or refresh would stop early.
    Grant: longest,
    // A session that signed in to the admin client ends with the admin client's refresh lifetime
    // counted from its sign-in, however often it is used: its tokens expire with it
    // (expiresWithSession below), so no staff refresh token outlives the sign-in by a second.
    Session: (_ctx, session) => {
      // Granted to the admin client: only a staff sign-in gets that far (the login check above).
      const staff = Boolean(session.authorizations?.[ids.admin]?.grantId);
      if (!staff || session.loginTs === undefined) return longest;
      return Math.max(1, session.loginTs + config.refreshTokenTtlAdminS - nowS());
    },
  };
}

export function createProvider(deps: { config: Config; db: Db; keys: KeyMaterial; clock: () => Date }): Provider {
  const { config, db } = deps;
  const ids = clientIds(config.stage);
  const nowS = () => Math.floor(deps.clock().getTime() / 1000);
  const headers = pageHeaders(clientCallbacks(config));

  const policy = interactionPolicy.base();
  // The admin client needs a TOTP-verified staff session; the customer client an org user's.
  // Without this check, a session made through one client would let the other through.
  const fit = sessionFit({
    ids,
    staffSignInTtlS: config.refreshTokenTtlAdminS,
    clock: deps.clock,
    kindOf: async (id) => (await accountsRepo.byId(db, id))?.kind,
  });
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('account_kind', 'this client needs another kind of sign-in', async (ctx) => {
      const { session, client } = ctx.oidc;
      if (!session?.accountId || !client) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      return (await fit(session, client.clientId)) ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
    }),
  );

  const authPath = new URL(config.authUrl).pathname.replace(/\/$/, '');
  const configuration: Configuration = {
    adapter: adapterFor(db, deps.clock),
    clients: clientsOf(config, ids),
    findAccount: accountFinder(db),
    claims: {
      openid: ['sub', 'amr', 'custom:orgId', 'custom:role', 'cognito:username', 'token_use'],
      [STAFF_SCOPE]: [],
      email: ['email', 'email_verified'],
      profile: ['name'],
    },
    scopes: SCOPES,
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    routes: {
      authorization: '/oauth2/authorize',
      token: '/oauth2/token',
      userinfo: '/oauth2/userInfo',
      end_session: '/logout',
      jwks: '/.well-known/jwks.json',
      revocation: '/oauth2/revoke',
    },
    ttl: ttlOf(config, ids, nowS),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: false,
    // Codes and tokens belong to the session they were issued in: ending it (logout, a password
    // change) ends them, and the provider's logout revokes them.
    expiresWithSession: async () => true,
    extraTokenClaims: async (_ctx, token) => (token.kind === 'AccessToken' ? { token_use: 'access' } : undefined),
    cookies: { keys: deps.keys.cookieKeys, long: { signed: true }, short: { signed: true, path: authPath || '/' } },
    jwks: { keys: deps.keys.signing as NonNullable<Configuration['jwks']>['keys'] },
    // The library's own rule, stated so it stops warning at start: a public client (the web apps)
    // may call the token, revocation and userinfo endpoints from its callbacks' origins only.
    clientBasedCORS: (_ctx, origin, client) => origin !== 'null' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // Our own pages: the library's stock ones load Google Fonts (and it prints a NOTICE at start).
        logoutSource: async (ctx, form) => {
          ctx.set(headers);
          ctx.type = 'html';
          ctx.body = logoutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.set(headers);
          ctx.type = 'html';
          ctx.body = signedOutPage();
        },
      },
    },
    interactions: { policy, url: (_ctx, interaction) => `${authPath}/interaction/${interaction.uid}` },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.set(headers);
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description ?? 'The request could not be completed.');
    },
  };
  const provider = new Provider(config.authUrl, configuration);
  provider.proxy = true;
  return provider;
}

/** The two web apps, public clients with PKCE: the dashboard (and the extensions' callbacks) and the staff app. */
function clientsOf(config: Config, ids: ReturnType<typeof clientIds>): NonNullable<Configuration['clients']> {
  return [
    {
      client_id: ids.app,
      client_name: 'Signature Service',
      application_type: applicationType([config.appUrl, ...config.extensionCallbackUrls]),
      scope: USER_SCOPES.join(' '),
      require_auth_time: true,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [config.appUrl, ...config.extensionCallbackUrls],
      post_logout_redirect_uris: [config.appUrl, ...config.extensionCallbackUrls],
    },
    {
      client_id: ids.admin,
      client_name: 'Signature Service staff',
      application_type: applicationType([config.adminUrl]),
      scope: SCOPES.join(' '),
      require_auth_time: true,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [config.adminUrl],
      post_logout_redirect_uris: [config.adminUrl],
    },
  ];
}

/** An account's claims, read from the database at each use. */
function accountFinder(db: Db): NonNullable<Configuration['findAccount']> {
  return async (_ctx, sub) => {
    const account = await accountsRepo.byId(db, sub);
    if (!account) return undefined;
    return {
      accountId: sub,
      claims: async (use) => ({
        sub,
        email: account.email,
        email_verified: account.emailVerified,
        name: account.name,
        // Tenancy claims only on the ID token (docs/identity.md).
        ...(use === 'id_token'
          ? {
              'custom:role': account.role,
              ...(account.orgId ? { 'custom:orgId': account.orgId } : {}),
              // Cognito's username is the user's id here (what `sub` holds).
              'cognito:username': sub,
              token_use: 'id',
            }
          : {}),
      }),
    };
  };
}
