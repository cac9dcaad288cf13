// Signing out. Cognito's form of logout (`GET {auth_url}/logout?client_id=…&logout_uri=…`) ends the
// session and the tokens issued in it at once, then goes to `logout_uri` when it is one of the
// client's callbacks, else to our signed-out page. Without `logout_uri` it is OpenID's
// RP-initiated logout: the provider's, whose confirmation form refuses cross-site posts like every
// form of these pages.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';
import type { SignIn } from './sign-in.ts';
import { handToProvider, pinOrigin } from './hooks.ts';
import { fieldProblem } from './steps.ts';
import { crossSitePage, errorPage, signedOutPage } from './views.ts';
import { refuseCrossSitePosts } from '../http/cross-site.ts';

export function logoutRoutes(deps: {
  provider: Provider;
  signIn: Pick<SignIn, 'endSession'>;
  authUrl: string;
  authPath: string;
  /** The pages' headers (views.ts `pageHeaders`). */
  pageHeaders: Readonly<Record<string, string>>;
}): FastifyPluginAsync {
  const { provider } = deps;
  const toProvider = handToProvider(provider, deps.authUrl);
  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(deps.pageHeaders).type('text/html; charset=utf-8').send(body);
  const refuseCrossSite = refuseCrossSitePosts(new URL(deps.authUrl).origin, (reply) => html(reply, crossSitePage(), 403));

  return async (app) => {
    // The provider's confirmation form posts here: refused from another site before the provider runs.
    app.post(`${deps.authPath}/logout/confirm`, { schema: { hide: true }, onRequest: [refuseCrossSite, toProvider] }, async () => undefined);

    app.get<{ Querystring: Record<string, unknown> }>(`${deps.authPath}/logout`, { schema: { hide: true } }, async (request, reply) => {
      const query = request.query ?? {};
      if (query.logout_uri === undefined) return toProvider(request, reply);
      const clientId = query.client_id;
      const logoutUri = query.logout_uri;
      if (typeof clientId !== 'string' || typeof logoutUri !== 'string' || fieldProblem(clientId) || fieldProblem(logoutUri)) {
        return html(reply, errorPage('invalid_request', 'The sign-out link is not valid.'), 400);
      }
      const client = await provider.Client.find(clientId);
      if (!client) return html(reply, errorPage('invalid_client', 'The sign-out link names an unknown app.'), 400);
      pinOrigin(request.raw, new URL(deps.authUrl));
      const ctx = provider.createContext(request.raw, reply.raw);
      const session = await provider.Session.get(ctx);
      if (session.accountId) {
        const grantIds = Object.values(session.authorizations ?? {}).flatMap((a) => (a.grantId ? [a.grantId] : []));
        await deps.signIn.endSession(grantIds);
        await session.destroy();
      }
      // Forget the browser's session cookie however the session ended (also when it had expired).
      ctx.cookies.set(provider.cookieName('session'), null, { signed: true });
      if ((client.redirectUris ?? []).includes(logoutUri)) return reply.code(302).header('location', logoutUri).send();
      return html(reply, signedOutPage());
    });
  };
}
