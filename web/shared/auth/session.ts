// Sign-in for both web apps (docs/web-apps.md): authorization code + PKCE through AUTH_URL
// with oauth4webapi. Tokens live in this object only (never in storage, never left in the URL);
// the ID token is renewed with the refresh token before it expires; sign-out goes through the
// identity provider's Cognito-style `/logout`, which ends its session and the refresh tokens.
//
// The one thing kept in sessionStorage is the sign-in in flight (PKCE verifier, state, nonce and
// the page to return to): it must survive the trip to the identity provider and back, it is no
// credential on its own (the code it completes is bound to this browser's redirect), and it is
// deleted as soon as the callback is handled.
import * as oauth from 'oauth4webapi';
import type { RuntimeConfig } from '../config.ts';

export interface Claims {
  sub: string;
  email?: string;
  name?: string;
  exp: number;
  'custom:orgId'?: string;
  'custom:role'?: string;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  returnTo: string;
}

const SCOPE = 'openid email profile aws.cognito.signin.user.admin';
/** Renew this long before the ID token expires (or at half its life, if that is sooner). */
const RENEW_AHEAD_S = 60;

export class SignInError extends Error {}

export class Session {
  private idToken: string | undefined;
  private refreshToken: string | undefined;
  private claimsValue: Claims | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<boolean> | undefined;
  private lifeMs = 0;
  private readonly listeners = new Set<() => void>();
  private readonly pendingKey: string;
  private readonly options: { [oauth.allowInsecureRequests]?: boolean };

  readonly config: RuntimeConfig;
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;

  private constructor(config: RuntimeConfig, as: oauth.AuthorizationServer, client: oauth.Client) {
    this.config = config;
    this.as = as;
    this.client = client;
    this.pendingKey = `sigsvc:signin:${config.clientId}`;
    this.options = new URL(config.authUrl).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  }

  /** Discovers the identity provider and, when this page is the OAuth callback, completes the sign-in. */
  static async start(config: RuntimeConfig): Promise<Session> {
    const issuer = new URL(config.authUrl);
    const insecure = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
    const session = new Session(config, as, { client_id: config.clientId });
    await session.completeCallback();
    return session;
  }

  get signedIn(): boolean {
    return this.idToken !== undefined;
  }

  get claims(): Claims {
    if (!this.claimsValue) throw new SignInError('Not signed in.');
    return this.claimsValue;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Goes to the identity provider; comes back to `returnTo` (a path under the app). */
  async signIn(returnTo = location.pathname + location.search + location.hash): Promise<never> {
    const verifier = oauth.generateRandomCodeVerifier();
    const pending: Pending = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), returnTo };
    sessionStorage.setItem(this.pendingKey, JSON.stringify(pending));
    const url = new URL(this.as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: this.config.clientId,
      redirect_uri: this.config.appUrl,
      response_type: 'code',
      scope: SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    }).toString();
    location.assign(url.toString());
    return new Promise<never>(() => {});
  }

  /**
   * The ID token for the API, renewed first when it is about to expire (in the last quarter of its
   * life, at most 30 s): the timer renews it earlier, unless the tab slept through the timer.
   */
  async token(): Promise<string | undefined> {
    if (this.claimsValue && this.claimsValue.exp * 1000 - Date.now() < Math.min(30_000, this.lifeMs / 4)) await this.renew();
    return this.idToken;
  }

  /** Refresh-token grant; false when the sign-in cannot be renewed (then sign in again). */
  renew(): Promise<boolean> {
    this.renewing ??= this.refresh().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Forgets the tokens and ends the identity provider's session (Cognito-style logout). */
  signOut(): never {
    this.forget();
    const url = new URL(`${this.as.issuer.replace(/\/$/, '')}/logout`);
    url.search = new URLSearchParams({ client_id: this.config.clientId, logout_uri: this.config.appUrl }).toString();
    location.assign(url.toString());
    throw new SignInError('Signing out.');
  }

  private async completeCallback(): Promise<void> {
    const here = new URL(location.href);
    const isCallback = here.origin + here.pathname.replace(/\/$/, '') === this.config.appUrl.replace(/\/$/, '');
    if (!isCallback || !(here.searchParams.has('code') || here.searchParams.has('error'))) return;
    const raw = sessionStorage.getItem(this.pendingKey);
    sessionStorage.removeItem(this.pendingKey);
    // The code (or error) leaves the address bar whatever happens next.
    const pending = raw ? (JSON.parse(raw) as Pending) : undefined;
    history.replaceState(null, '', pending?.returnTo ?? here.pathname);
    if (!pending) return; // a stale or foreign callback: the app starts a fresh sign-in
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(this.as, this.client, here, pending.state);
    } catch (err) {
      throw new SignInError(err instanceof oauth.AuthorizationResponseError ? (err.error_description ?? err.error) : 'The sign-in answer was not valid.');
    }
    const response = await oauth.authorizationCodeGrantRequest(this.as, this.client, oauth.None(), params, this.config.appUrl, pending.verifier, this.options);
    const result = await oauth.processAuthorizationCodeResponse(this.as, this.client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    this.accept(result);
  }

  private async refresh(): Promise<boolean> {
    if (!this.refreshToken) return false;
    try {
      const response = await oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), this.refreshToken, this.options);
      this.accept(await oauth.processRefreshTokenResponse(this.as, this.client, response));
      return true;
    } catch {
      this.forget();
      return false;
    }
  }

  private accept(result: oauth.TokenEndpointResponse): void {
    const claims = oauth.getValidatedIdTokenClaims(result) as unknown as Claims | undefined;
    if (!result.id_token || !claims) throw new SignInError('The identity provider sent no ID token.');
    this.idToken = result.id_token;
    this.claimsValue = claims;
    this.lifeMs = claims.exp * 1000 - Date.now();
    if (result.refresh_token) this.refreshToken = result.refresh_token;
    this.schedule();
    for (const listener of this.listeners) listener();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.claimsValue || !this.refreshToken) return;
    const lifeMs = this.claimsValue.exp * 1000 - Date.now();
    const ahead = Math.min(RENEW_AHEAD_S * 1000, lifeMs / 2);
    this.timer = setTimeout(
      () => {
        void this.renew().then((ok) => {
          if (!ok) for (const listener of this.listeners) listener();
        });
      },
      Math.max(0, lifeMs - ahead),
    );
  }

  private forget(): void {
    clearTimeout(this.timer);
    this.idToken = undefined;
    this.refreshToken = undefined;
    this.claimsValue = undefined;
  }
}
