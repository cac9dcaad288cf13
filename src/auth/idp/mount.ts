// Hands a request to the identity provider (a Koa app) that answers under AUTH_URL's path. It is
// done in onRequest, before any body parsing, with the mount path moved to originalUrl as a
// mounting middleware would (this costs nothing on other routes, where a global middleware layer
// would run on every request).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { CORRELATION_HEADER } from '../../http/correlation.ts';

export function handToProvider(provider: Provider, authPath: string) {
  const callback = provider.callback();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    raw.originalUrl = raw.url;
    raw.url = (raw.url ?? '').slice(authPath.length) || '/';
    reply.raw.setHeader(CORRELATION_HEADER, request.id);
    callback(raw, reply.raw);
    return reply;
  };
}
