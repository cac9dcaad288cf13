// The onRequest hook that hands a request to the identity provider (a Koa app), which answers
// under AUTH_URL's path. It runs before any body parsing and moves the mount path to originalUrl
// as a mounting middleware would (this costs nothing on other routes, where a global middleware
// layer would run on every request).
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { CORRELATION_HEADER } from '../../http/correlation.ts';

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
    reply.raw.setHeader(CORRELATION_HEADER, request.id);
    callback(raw, reply.raw);
    return reply;
  };
}
