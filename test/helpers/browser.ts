// A minimal browser for the sign-in flow: a cookie jar, manual redirects, form posts.
import * as client from 'openid-client';

export class Browser {
  readonly cookies = new Map<string, string>();
  lastPage = '';
  lastStatus = 0;

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, i);
      const value = (pair ?? '').slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects until one leaves the server (the client's callback) or a page is shown. */
  async follow(url: string, stopAt: string): Promise<{ callback?: URL; page?: string; status: number; url: string }> {
    let current = url;
    for (let i = 0; i < 10; i++) {
      if (current.startsWith(stopAt)) return { callback: new URL(current), status: 303, url: current };
      const res = await this.fetch(current);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        current = new URL(location, current).toString();
        continue;
      }
      this.lastPage = await res.text();
      this.lastStatus = res.status;
      return { page: this.lastPage, status: res.status, url: current };
    }
    throw new Error('too many redirects');
  }

  async submit(pageUrl: string, fields: Record<string, string>, stopAt: string) {
    const action = /<form method="post" action="([^"]+)"/.exec(this.lastPage)?.[1];
    if (!action) throw new Error(`no form on the page: ${this.lastPage.slice(0, 300)}`);
    const target = new URL(action.replaceAll('&amp;', '&'), pageUrl).toString();
    const res = await this.fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const location = res.headers.get('location');
    if (res.status === 303 && location) return this.follow(new URL(location, target).toString(), stopAt);
    this.lastPage = await res.text();
    this.lastStatus = res.status;
    return { page: this.lastPage, status: res.status, url: target };
  }
}

export interface OidcClient {
  config: client.Configuration;
  redirectUri: string;
}

export async function oidcClient(authUrl: string, clientId: string, redirectUri: string): Promise<OidcClient> {
  const config = await client.discovery(new URL(authUrl), clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  return { config, redirectUri };
}

export async function authorizeUrl(c: OidcClient, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const challenge = await client.calculatePKCECodeChallenge(verifier);
  const url = client.buildAuthorizationUrl(c.config, {
    redirect_uri: c.redirectUri,
    scope: 'openid email profile aws.cognito.signin.user.admin',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url: url.toString(), verifier };
}

/** The whole sign-in: authorize, password (and TOTP when asked), code exchange with PKCE. */
export async function signIn(c: OidcClient, creds: { username: string; password: string; otp?: () => string }, browser = new Browser()) {
  const { url, verifier } = await authorizeUrl(c);
  let step = await browser.follow(url, c.redirectUri);
  if (!step.callback) step = await browser.submit(step.url, { username: creds.username, password: creds.password }, c.redirectUri);
  if (!step.callback && creds.otp && /name="otp"/.test(browser.lastPage)) {
    step = await browser.submit(step.url, { otp: creds.otp() }, c.redirectUri);
  }
  if (!step.callback) throw new Error(`sign-in did not finish: ${step.status} ${browser.lastPage.slice(0, 400)}`);
  const tokens = await client.authorizationCodeGrant(c.config, step.callback, { pkceCodeVerifier: verifier });
  return { tokens, browser, callback: step.callback, verifier };
}

export { client };
