// The onRequest hook that hands a request to the identity provider (a Koa app), which answers
// under AUTH_URL's path. It runs before any body parsing and moves the mount path to originalUrl
// as a mounting middleware would (this costs nothing on other routes, where a global middleware
// layer would run on every request).
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { CORRELATION_HEADER } from '../http/correlation.ts';
import { redactUrl } from '../http/request-log.ts';
import type { Logger } from '../log.ts';

/**
 * The provider builds its endpoints (discovery, redirects) from the request's host and scheme,
 * read from X-Forwarded-Host/-Proto (`provider.proxy`). Whatever a client sends, they are set to
 * AUTH_URL's, so no request can make discovery or a redirect name another host, and cookies are
 * `Secure` exactly when AUTH_URL is https.
 */
export function pinOrigin(raw: IncomingMessage, authUrl: URL): void {
  raw.headers['x-forwarded-host'] = authUrl.host;
  raw.headers['x-forwarded-proto'] = authUrl.protocol.slice(0, -1);
  delete raw.headers['x-forwarded-port'];
}

export function handToProvider(provider: Provider, authUrl: string) {
  const callback = provider.callback();
  const origin = new URL(authUrl);
  const authPath = origin.pathname.replace(/\/$/, '');
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    raw.originalUrl = raw.url;
    raw.url = (raw.url ?? '').slice(authPath.length) || '/';
    pinOrigin(raw, origin);
    // The provider (Koa, behind `provider.proxy`) would take the client's address from whatever
    // X-Forwarded-For says; it gets the one Fastify established under TRUST_PROXY instead.
    raw.headers['x-forwarded-for'] = request.ip;
    reply.raw.setHeader(CORRELATION_HEADER, request.id);
    callback(raw, reply.raw);
    return reply;
  };
}

// The provider's events for refused requests (OpenID errors a client caused) and its own failures.
const CLIENT_ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'userinfo.error',
  'end_session.error',
  'revocation.error',
  'discovery.error',
  'jwks.error',
] as const;

interface ProviderError {
  error?: string;
  error_description?: string;
}

/**
 * Logs the provider's errors as the service's own lines: the full path (AUTH_URL's mount
 * included, as the client sent it; the provider itself sees it without the mount), redacted like
 * the request log, and the request's correlation id. A client's OpenID error (`invalid_grant`…) is
 * info, the provider's own failure (`server_error`) an error with its stack.
 */
export function logProviderErrors(provider: Provider, logger: Logger): void {
  const where = (ctx: KoaContextWithOIDC) => {
    const req = ctx.req as IncomingMessage & { originalUrl?: string };
    return { correlationId: ctx.res.getHeader(CORRELATION_HEADER), method: ctx.method, url: redactUrl(req.originalUrl ?? req.url ?? '') };
  };
  for (const name of CLIENT_ERROR_EVENTS) {
    // Every name has the same listener shape; the typings list them one overload each.
    provider.on(name as 'grant.error', (ctx: KoaContextWithOIDC, err: ProviderError) => {
      logger.info({ ...where(ctx), event: name, error: err.error, description: err.error_description }, `identity provider refused: ${err.error}`);
    });
  }
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
    logger.error({ ...where(ctx), event: 'server_error', err }, 'identity provider failed');
  });
}
