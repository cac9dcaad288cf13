// Starting an identity-provider session outside a sign-in (an accepted invitation, a finished
// reset): the account is signed in on this browser, so the dashboard's next authorization request
// (code + PKCE, as always) completes without asking for the password again. oidc-provider has no
// public call for this; this does what its session middleware does at the end of a sign-in:
// `loginAccount` on the browser's session, a new session id (no fixation), the signed cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

export async function startSession(
  provider: Provider,
  authUrl: string,
  req: IncomingMessage,
  res: ServerResponse,
  accountId: string,
  sessionTtlS: number,
  /** Sets the request's origin to AUTH_URL's (hooks.ts `pinOrigin`), so cookies are Secure exactly when it is https. */
  pinOrigin: (req: IncomingMessage, authUrl: URL) => void,
  /** The sign-in's time by the service's clock, as interactions.ts records a password sign-in's. */
  loginAt: Date,
): Promise<void> {
  pinOrigin(req, new URL(authUrl));
  const ctx = provider.createContext(req, res);
  let session = await provider.Session.get(ctx);
  if (session.accountId && session.accountId !== accountId) {
    // Someone else was signed in on this browser: their session ends here.
    await session.destroy();
    session = await provider.Session.get(ctx);
  }
  session.loginAccount({ accountId, amr: ['pwd'], loginTs: Math.floor(loginAt.getTime() / 1000) });
  session.resetIdentifier();
  await session.save(sessionTtlS);
  ctx.cookies.set(provider.cookieName('session'), session.jti, { signed: true, httpOnly: true, sameSite: 'lax', maxAge: sessionTtlS * 1000 });
}
