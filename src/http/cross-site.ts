// Forms refuse cross-site posts (docs/api.md, "Signing in (OpenID Connect)"): a login CSRF
// would otherwise sign a victim's browser into an attacker's account through the reset or
// invitation form. Browsers name where a post comes from: `Origin` on every POST, and
// `Sec-Fetch-Site`. A post without either (curl, a script, an old client) is allowed: the forms
// carry no ambient authority a script could not get itself.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Whether a request is a post from another site: `Sec-Fetch-Site: cross-site`, or an `Origin` that
 * is not `origin` (`null` included: an opaque origin, a sandboxed frame, a page that sends none).
 */
export function isCrossSitePost(method: string, headers: IncomingHttpHeaders, origin: string): boolean {
  if (method !== 'POST') return false;
  if (headers['sec-fetch-site'] === 'cross-site') return true;
  const from = headers.origin;
  return from !== undefined && from !== origin;
}

/** An onRequest hook that answers `refuse` (a 403) to a cross-site post, before its body is read. */
export function refuseCrossSitePosts(origin: string, refuse: (reply: FastifyReply) => FastifyReply) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (isCrossSitePost(request.method, request.headers, origin)) return refuse(reply.code(403));
  };
}
